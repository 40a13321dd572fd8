// `medsynth-engine export-dicom VOLUME OUT_DIR [--modality CT|MR]
// [--series-description TEXT]`: writes a volume (typically one that generate
// made) as a DICOM series for a PACS or viewer, marked synthetic, with the
// seed and checkpoint hashes of its provenance when the NIfTI records one
// (volume/dicom_export.hpp, docs/dicom-export.md).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/verbs.hpp"
#include "diffusion/generation_provenance.hpp"
#include "volume/dicom_export.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::cli {
namespace {

// One line for ImageComments: what made the volume, "" if nothing recorded it.
std::string provenance_line(const std::string& file) {
  if (!std::filesystem::is_regular_file(file)) return {};  // a DICOM folder: no NIfTI extensions
  for (const auto& text : read_nifti_comment_extensions(file))
    if (auto p = parse_provenance(text, file)) {
      std::string line = "seed " + std::to_string(p->seed) + ", unet checkpoint fnv1a64 " + p->unet_checkpoint_hash +
                         ", autoencoder checkpoint fnv1a64 " + p->autoencoder_checkpoint_hash;
      if (!p->controlnet_checkpoint_hash.empty())
        line += ", controlnet checkpoint fnv1a64 " + p->controlnet_checkpoint_hash + ", label fnv1a64 " + p->label_hash;
      return line + ", " + p->scheduler + " " + std::to_string(p->num_inference_steps) + " steps, medsynth " +
             p->engine_version;
    }
  return {};
}

}  // namespace

Action add_export_dicom_verb(CLI::App& app) {
  struct Args {
    std::string volume, out_dir, modality = "CT";
    DicomExportOptions options;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("export-dicom", "Write a volume as a DICOM series (one file per slice), marked synthetic");
  cmd->add_option("volume", a->volume, "A .nii/.nii.gz volume (or a DICOM folder)")->required()->check(CLI::ExistingPath);
  cmd->add_option("out_dir", a->out_dir, "A new or empty folder for the series")->required();
  cmd->add_option("--modality", a->modality, "CT (values in HU) or MR")->check(CLI::IsMember({"CT", "MR"}));
  cmd->add_option("--series-description", a->options.series_description, "SeriesDescription, at most 64 characters");
  return [a] {
    a->options.modality = a->modality == "MR" ? DicomModality::mr : DicomModality::ct;
    a->options.source = a->volume;
    a->options.provenance = provenance_line(a->volume);
    write_dicom_series(read_volume(a->volume), a->options, a->out_dir);
    std::cout << a->out_dir << "\n";
    return 0;
  };
}

}  // namespace medsynth::cli

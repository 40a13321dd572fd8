// `medsynth-engine export-dicom VOLUME OUT_DIR [--modality CT|MR]
// [--series-description TEXT] [--patient-name PN] [--patient-id ID]`: writes
// a volume (typically one that generate made) as a DICOM series for a PACS or
// viewer, marked synthetic, with the seed and checkpoint hashes of its
// provenance when the NIfTI records one (volume/dicom_export.hpp,
// diffusion/volume_provenance.hpp, docs/dicom-export.md).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/verbs.hpp"
#include "diffusion/volume_provenance.hpp"
#include "volume/dicom_export.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::cli {

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
  cmd->add_option("--patient-name", a->options.patient_name, "PatientName (default SYNTHETIC^MEDSYNTH)");
  cmd->add_option("--patient-id", a->options.patient_id, "PatientID (default MEDSYNTH-SYNTHETIC)");
  return [a] {
    a->options.modality = a->modality == "MR" ? DicomModality::mr : DicomModality::ct;
    a->options.source = a->volume;
    if (const auto p = read_volume_provenance(a->volume)) a->options.provenance = provenance_summary(*p);
    write_dicom_series(read_volume(a->volume), a->options, a->out_dir);
    std::cout << a->out_dir << "\n";
    return 0;
  };
}

}  // namespace medsynth::cli

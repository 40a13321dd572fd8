// `medsynth-engine export-dicom VOLUME OUT_DIR [--label LABEL] [--modality CT|MR]
// [--series-description TEXT] [--patient-name PN] [--patient-id ID]`: writes
// a volume (typically one that generate made) as a DICOM series for a PACS or
// viewer, marked synthetic, with the seed and checkpoint hashes of its
// provenance when the NIfTI records one; with --label, the label map beside
// it as a DICOM-SEG (OUT_DIR/segmentation.dcm) that references the series.
// `medsynth-engine export-seg LABEL SERIES_DIR OUT.dcm` writes the SEG of a
// label map drawn on any existing image series (a real CT and its
// prepare-label output). volume/dicom_export.hpp, volume/dicom_seg_export.hpp,
// docs/dicom-export.md.
#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/verbs.hpp"
#include "core/error.hpp"
#include "core/remove_tree.hpp"
#include "data/label_dicom_codes.hpp"
#include "contract/volume_provenance.hpp"
#include "events/progress_lines.hpp"
#include "volume/dicom_export.hpp"
#include "volume/dicom_seg_export.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::cli {

namespace {

constexpr const char* k_seg_file_name = "segmentation.dcm";

DicomSegOptions seg_options(const Volume& label, const std::string& label_path) {
  DicomSegOptions options;
  options.source = label_path;
  options.software_version = MEDSYNTH_VERSION;
  options.segments = maisi_ct_segments(labels_in_map(label, label_path));
  options.coding_schemes = {maisi_ct_private_coding_scheme()};
  return options;
}

void report(const DicomSegWritten& seg, const std::string& path) {
  std::cout << path << " (DICOM-SEG: " << seg.segments << " segments, " << seg.frames << " frames, referencing series "
            << seg.referenced_series_uid << ")\n";
}

// The label map must lie on the image's grid (checked before anything is
// written; the SEG then checks it against the series itself).
void check_label_grid(const Volume& image, const Volume& label, const std::string& image_path,
                      const std::string& label_path) {
  static const char* const what[] = {"", "size", "spacing", "origin", "direction"};
  const GridDifference difference = grid_difference(image, label);
  if (difference != GridDifference::none)
    throw DataError(label_path, "does not lie on the voxel grid of " + image_path + ": its " +
                                    what[static_cast<int>(difference)] +
                                    " differs (size, spacing, origin and direction must match)");
}

}  // namespace

Action add_export_dicom_verb(CLI::App& app) {
  struct Args {
    std::string volume, out_dir, label, modality = "CT";
    DicomExportOptions options;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("export-dicom", "Write a volume as a DICOM series (one file per slice), marked synthetic");
  cmd->add_option("volume", a->volume, "A .nii/.nii.gz volume (or a DICOM folder)")->required()->check(CLI::ExistingPath);
  cmd->add_option("out_dir", a->out_dir, "A new or empty folder for the series")->required();
  cmd->add_option("--label", a->label,
                  "A label map on the volume's grid: written as OUT_DIR/segmentation.dcm (DICOM-SEG)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--modality", a->modality, "CT (values in HU) or MR")->check(CLI::IsMember({"CT", "MR"}));
  cmd->add_option("--series-description", a->options.series_description, "SeriesDescription, at most 64 characters");
  cmd->add_option("--patient-name", a->options.patient_name, "PatientName (default SYNTHETIC^MEDSYNTH)");
  cmd->add_option("--patient-id", a->options.patient_id, "PatientID (default MEDSYNTH-SYNTHETIC)");
  return [a] {
    a->options.modality = a->modality == "MR" ? DicomModality::mr : DicomModality::ct;
    a->options.source = a->volume;
    if (const auto p = read_volume_provenance(a->volume)) a->options.provenance = provenance_summary(*p);
    const Volume volume = read_volume(a->volume);
    std::optional<Volume> label;
    std::optional<DicomSegOptions> seg;
    if (!a->label.empty()) {
      label = read_volume(a->label);
      check_label_grid(volume, *label, a->volume, a->label);
      seg = seg_options(*label, a->label);
    }
    ProgressLines progress({.prefix = "export-dicom"});
    a->options.on_slice_written = [&progress](std::size_t done, std::size_t total) {
      progress.report("slices written", static_cast<std::int64_t>(done), static_cast<std::int64_t>(total));
    };
    write_dicom_series(volume, a->options, a->out_dir);
    std::cout << a->out_dir << "\n";
    if (label) {
      const std::string seg_path = (std::filesystem::path(a->out_dir) / k_seg_file_name).string();
      try {
        report(write_dicom_seg(*label, *seg, a->out_dir, seg_path), seg_path);
      } catch (...) {
        remove_tree(a->out_dir);  // the folder was new or empty: a pair is written whole or not at all
        throw;
      }
    }
    return 0;
  };
}

Action add_export_seg_verb(CLI::App& app) {
  struct Args {
    std::string label, series_dir, out_file;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("export-seg", "Write a label map as a DICOM-SEG that references an existing image series");
  cmd->add_option("label", a->label, "A label map (.nii/.nii.gz) on the series' grid")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("series_dir", a->series_dir, "The folder of the DICOM image series it segments")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("out_file", a->out_file, "The new SEG file (.dcm); never written over")->required();
  return [a] {
    const Volume label = read_volume(a->label);
    report(write_dicom_seg(label, seg_options(label, a->label), a->series_dir, a->out_file), a->out_file);
    return 0;
  };
}

}  // namespace medsynth::cli

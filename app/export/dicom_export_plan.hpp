// The viewer's "Export DICOM…" as data: what the dialog shows and checks
// before the engine's write_dicom_series (volume/dicom_export.hpp) runs.
// DicomExportDialog (ui/viewer) fills DicomExportFields from its widgets,
// shows dicom_export_summary, builds the request with
// build_dicom_export_request and runs run_dicom_export on QtConcurrent's pool.
// Pure and synchronous; run_dicom_export blocks (it writes the files), the
// rest is cheap. No widgets; tested without a display (tests/ui/viewer).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include <QString>

#include "contract/generation_provenance.hpp"
#include "volume/dicom_export.hpp"
#include "volume/volume.hpp"

namespace medsynth::app {

// What is known about the volume to export.
struct DicomExportSource {
  QString path;  // the file the viewer opened (messages, the default folder)
  std::array<std::size_t, 3> size{0, 0, 0};
  std::array<double, 3> spacing{1.0, 1.0, 1.0};
  std::optional<GenerationProvenance> provenance;  // read_volume_provenance
  bool values_look_like_hu = true;                 // the viewer's CT/MRI guess from the intensities
};

DicomExportSource make_dicom_export_source(const QString& path, const Volume& volume,
                                           std::optional<GenerationProvenance> provenance, bool values_look_like_hu);

// The dialog's fields, as typed.
struct DicomExportFields {
  QString out_dir;
  DicomModality modality = DicomModality::ct;
  QString patient_name, patient_id, series_description;
};

// The modality the volume was made as: the provenance job's data.modality
// (ct / mri) when it has one, else CT when the values look like HU.
DicomModality suggested_dicom_modality(const DicomExportSource& source);

// Defaults: a new folder "<name>-dicom" beside the file, the suggested
// modality, and the engine's synthetic patient name/ID and series description.
DicomExportFields default_dicom_export_fields(const DicomExportSource& source);

// What write_dicom_series will get; `error` names the field when the fields
// cannot be exported (then options/out_dir are not to be used).
struct DicomExportRequest {
  DicomExportOptions options;
  std::string out_dir;
  QString error;
  bool ok() const { return error.isEmpty(); }
};

// Checks the fields as the engine will (check_dicom_export_options) and the
// output folder (it must be new or an empty folder, as write_dicom_series
// requires), and adds the provenance line the engine's export-dicom writes.
DicomExportRequest build_dicom_export_request(const DicomExportSource& source, const DicomExportFields& fields);

// Plain text, several lines: slice count and size, spacing, modality and
// patient, the provenance (seed, checkpoints) or that none is recorded, and
// that every file is marked synthetic.
QString dicom_export_summary(const DicomExportSource& source, const DicomExportFields& fields);

struct DicomExportOutcome {
  QString out_dir;
  int file_count = 0;  // .dcm files in out_dir after the export
  QString error;       // the engine's message (it names the file or field)
  bool ok() const { return error.isEmpty(); }
  QString message() const;  // one line for the dialog / the viewer's message line
};

// Runs write_dicom_series; never throws. Blocks: call it off the GUI thread.
DicomExportOutcome run_dicom_export(const Volume& volume, const DicomExportRequest& request);

}  // namespace medsynth::app

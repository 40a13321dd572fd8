// Loads a volume off the GUI thread: medsynth_volume's read_volume (NIfTI
// .nii/.nii.gz or a DICOM folder, with its header guard) plus the intensity
// statistics the viewer needs for automatic window/level, on QtConcurrent's
// pool. Results come back to the GUI thread as signals; a load superseded by
// a newer one is dropped. Errors are the volume layer's messages, which name
// the file. Used by VolumeViewerWidget and CompareWidget. The provenance of a
// generated NIfTI is read here too (for the Export DICOM dialog).
#pragma once

#include <memory>
#include <optional>

#include <QObject>
#include <QStringList>

#include "contract/generation_provenance.hpp"
#include "ui/viewer/window_level.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::ui {

struct LoadedVolume {
  QString path;
  std::shared_ptr<const Volume> volume;
  IntensityStats stats;
  QStringList warnings;  // lenient findings (e.g. qform/sform disagree), not errors
  // What made it, when a medsynth NIfTI records it (DICOM export shows and writes it).
  std::optional<GenerationProvenance> provenance;
};

// Synchronous: read + statistics. One file of a DICOM series loads the series
// in its folder (with a warning saying so). Throws medsynth::DataError (bad file) or
// std::exception; callers on the GUI thread must use VolumeLoader instead.
LoadedVolume load_volume_file(const QString& path, const VolumeReadOptions& read_options = {},
                              const PercentileOptions& percentiles = {});

// Wraps any loading failure into one line that names the file.
QString describe_load_error(const QString& path, const std::exception& error);

class VolumeLoader : public QObject {
  Q_OBJECT

 public:
  explicit VolumeLoader(QObject* parent = nullptr, VolumeReadOptions read_options = {},
                        PercentileOptions percentiles = {});
  ~VolumeLoader() override;

  // Starts loading; an earlier load still running will not be reported.
  void load(const QString& path);
  bool is_loading() const { return pending_ > 0; }

 signals:
  void loaded(const medsynth::ui::LoadedVolume& volume);
  void failed(const QString& path, const QString& message);

 private:
  VolumeReadOptions read_options_;
  PercentileOptions percentiles_;
  quint64 generation_ = 0;
  int pending_ = 0;
};

}  // namespace medsynth::ui

Q_DECLARE_METATYPE(medsynth::ui::LoadedVolume)

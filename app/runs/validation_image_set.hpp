// The newest validation slices of a run, as the engine names them: artifacts
// of kind "validation_image" for output/val-images/stepNNNNNN-<plane>.png
// (engine/train/training_validation.cpp). The run monitor's images panel
// shows them (ui/monitor/validation_images_view.hpp); no widgets here.
#pragma once

#include <QMap>
#include <QString>
#include <QVector>

#include "app/runs/run_model.hpp"

namespace medsynth::app {

inline constexpr char k_validation_image_kind[] = "validation_image";

struct ValidationImageSet {
  qint64 step = -1;              // -1: the run has none (yet)
  QMap<QString, QString> paths;  // plane ("axial", "coronal", "sagittal") -> PNG path

  bool empty() const { return paths.isEmpty(); }
};

// The plane a validation image's file is of ("step000100-axial.png" ->
// "axial"), or "" for a name the engine does not write.
QString validation_image_plane(const QString& path);

// The images of the latest step that has any. The engine writes a step's
// three files before their artifacts, so a listed path exists unless the run
// directory lies on another machine or was cleaned.
ValidationImageSet latest_validation_images(const QVector<Artifact>& artifacts);

}  // namespace medsynth::app

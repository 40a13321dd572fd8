// "Generate from this label" (issue 39.2) as data: the label editor's saved
// map, the MAISI run whose networks generate from it, and the folder the
// pair goes to, as a run like every other:
//   launch --nproc-per-node 1 generate RUN --label MAP --output-dir OUT --num-images 1 --json
// and "Regenerate this region" (issue 55) adds --inpaint IMAGE --region MAP
// --region-classes C: the image's region made again, steered by the map.
// (LocalLauncher's command; its event stream feeds a RunModel). Pure and
// synchronous; LabelGenerationFlow runs it.
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include "app/launch/launch_request.hpp"

namespace medsynth::app {

struct LabelGenerationRequest {
  QString run_dir;     // a MAISI run: import-maisi's, or one fine-tuned from it (its job.yaml)
  QString label_map;   // the saved label map, on the grid to generate on
  QString output_dir;  // where generate writes the image and its label
  int nproc_per_node = 1;
  // "Regenerate this region" (issue 55): the image whose region is made
  // again and every other voxel kept (generate --inpaint IMAGE --region
  // MAP), the region being the map's voxels of region_classes (every nonzero
  // voxel when empty). Empty: a new image from the label.
  QString inpaint_image;
  QList<int> region_classes;

  // "field: reason" lines, empty when the request can run: the run
  // directory holds a job.yaml, the label map exists, the output folder is set.
  QStringList validate() const;
};

LaunchRequest label_generation_launch_request(const LabelGenerationRequest& request);

// The run directory a file belongs to: the nearest folder at or above it
// that holds a job.yaml (a generated X_image.nii.gz sits in RUN/output/).
// Empty when none does.
QString run_dir_of(const QString& path);

// RUN/output/from-<label stem>-<yyyyMMdd-HHmmss-zzz>: a new folder for each
// generation, so that the results of successive edits sit side by side.
QString label_generation_output_dir(const QString& run_dir, const QString& label_map, const QDateTime& now);

}  // namespace medsynth::app

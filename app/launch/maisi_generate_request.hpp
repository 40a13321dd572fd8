// "Generate CT from MAISI weights" (issue 17.5) as data: what the user chose
// (an NV-Generate-CTMR download, the model, an optional label map, output
// size and spacing, processes, optionally their own volumes to fine-tune on)
// and the engine command lines it becomes:
//   import-maisi FOLDER --out RUN_DIR --model MODEL
//   generate RUN_DIR generate.output_size=[x,y,z] generate.spacing=[a,b,c]
//            --num-images N [--label MAP]
// or, to fine-tune first (issue 34.6), a new run from the imported networks
// that ends by generating, as the MAISI training workflow does:
//   train RUN_DIR --data VOLUMES training.max_steps=S generate.… --json
// (`launch --nproc-per-node P …` when P > 1). Pure and synchronous:
// MaisiGenerateFlow runs the commands; the ui's dialog validates with it.
#pragma once

#include <array>

#include <QDateTime>
#include <QString>
#include <QStringList>

#include "app/launch/launch_request.hpp"
#include "config/job_spec.hpp"
#include "config/maisi_models.hpp"

namespace medsynth::app {

// The models an NV-Generate-CTMR folder can hold (import-maisi --model).
QStringList maisi_models();

struct MaisiGenerateRequest {
  QString folder;                            // the NV-Generate download: configs/, models/
  QString model = QString::fromStdString(default_maisi_model());
  QString label_map;                         // optional: conditions the ControlNet (generate --label)
  std::array<int, 3> output_size{256, 256, 128};  // voxels x, y, z
  std::array<double, 3> spacing{1.5, 1.5, 2.0};   // mm
  int num_images = GenerateSpec{}.num_images;     // the job field generate.num_images (0: one per process)
  // The class label and classifier-free guidance (generate.modality,
  // generate.guidance_scale); below 0: what import-maisi set for the model
  // (MR: 9 with guidance 15, NV-Generate's).
  int modality = -1;
  double guidance_scale = -1.0;
  int nproc_per_node = 1;                    // engine processes on this machine
  // Fine-tune the released UNet on these volumes (a folder of CT volumes, of
  // case folders, or a datalist JSON) for finetune_steps optimizer steps
  // before generating; empty: generate from the released weights.
  QString finetune_data;
  int finetune_steps = 1000;
  QString run_dir;                           // created by import-maisi; must not exist yet

  // "field: reason" lines, empty when the request can run. Checks the folder
  // (folder_problems), the label map's existence, and sizes, spacing and the
  // image count by the rules of their job fields (generate.output_size,
  // generate.spacing, generate.num_images: config/job_fields.cpp's rows).
  QStringList validate() const;
};

// Why `folder` is not an NV-Generate download: it needs
// configs/config_network_*.json and a models/ folder. Empty when it is.
QStringList maisi_folder_problems(const QString& folder);

// RUNS_DIR/maisi-<model>-<yyyyMMdd-HHmmss>: a fresh run directory name.
QString default_maisi_run_dir(const QString& runs_dir, const QString& model, const QDateTime& now);

// The engine's arguments (without the program).
QStringList maisi_import_arguments(const MaisiGenerateRequest& request);
// The generate step as a run like any other: LocalLauncher starts
// `launch --nproc-per-node P generate RUN_DIR overrides --num-images N
// [--label MAP] --json` and follows its event stream.
LaunchRequest maisi_generate_launch_request(const MaisiGenerateRequest& request);
// The second step's engine command line (LocalLauncher's, with default
// options): generate's, or with finetune_data the fine-tune run's.
QStringList maisi_generate_arguments(const MaisiGenerateRequest& request);
// The fine-tune step (finetune_data set): `train RUN_DIR --data VOLUMES
// training.max_steps=S` with the request's generate settings, a new run
// beside the imported one (in RUN_DIR's parent folder) whose last stage
// generates generate.num_images images.
LaunchRequest maisi_finetune_launch_request(const MaisiGenerateRequest& request);

// What generate wrote into RUN_DIR/output: the newest-named image (X_image.nii.gz
// when a label map was given, else image_seed*_rank*.nii.gz) and its label
// (X_label.nii.gz) when present. Empty image when there is none.
struct GeneratedFiles {
  QString image;
  QString label;
};
GeneratedFiles find_generated_files(const QString& run_dir);
// The same rule in any folder generate wrote into (generate --output-dir).
GeneratedFiles find_generated_files_in(const QString& folder);

}  // namespace medsynth::app

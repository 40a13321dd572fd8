// "Synthetic dataset" (issue 39.5) as data: what the console's dialog asks
// (the MAISI run, where the labels come from, how many cases, the quality
// check, the memorization audit, the export format, the dataset folder) and
// the engine commands it becomes, case by case:
//   [prepare-label SEG --from FORMAT --out DATASET/labels/<stem>_maisi.nii.gz]   (segmentations, once per file)
//   generate RUN --label MAP --output-dir DATASET/pairs --num-images 1 --base-seed S_i
//            [--quality-check STATS --quality-tries T]
//   [export-dicom DATASET/pairs/IMAGE DATASET/dicom/case-NNNN --label LABEL]   (generate's names for seed S_i:
//            contract/generated_file_names.hpp)
// and once at the end:
//   [evaluate DATASET/pairs --reference TRAIN --train TRAIN --out DATASET/pairs/evaluation]
//   dataset-card DATASET/pairs          (-> DATASET/pairs/dataset-card.md, .json)
// Case i takes the labels in turn (i mod their count) and the seed
// S_i = base_seed + i * T, so that a quality retry (seed S_i + k, k < T) never
// makes another case's image. Pure and synchronous; SyntheticDatasetFlow runs it.
#pragma once

#include <vector>

#include <QString>
#include <QStringList>

namespace medsynth::app {

enum class DatasetLabelSource {
  label_maps,     // MAISI CT label maps as they are (prepared, or painted in the label editor)
  segmentations,  // TotalSegmentator / VISTA3D output or a map file: prepare-label first
};

enum class DatasetExport {
  nifti,  // the pairs generate writes (X_image.nii.gz, X_label.nii.gz)
  dicom,  // and each pair as a DICOM CT series with its DICOM-SEG
};

// The request's fields as the dialog names its rows, and as validate()
// names them in its messages (the form showed "run_dir: ..." before, issue 53
// item 4).
namespace dataset_field {
inline constexpr const char* run = "MAISI run";
inline constexpr const char* source = "Label source";
inline constexpr const char* segmentation_format = "Segmentation format";
inline constexpr const char* labels = "Labels";
inline constexpr const char* cases = "Cases";
inline constexpr const char* base_seed = "First seed";
inline constexpr const char* quality_statistics = "Organ statistics";
inline constexpr const char* quality_tries = "Tries per case";
inline constexpr const char* audit_train = "Training CT";
inline constexpr const char* export_format = "Export";
inline constexpr const char* output_dir = "Dataset folder";
}  // namespace dataset_field

struct SyntheticDatasetRequest {
  QString run_dir;  // a MAISI run with its ControlNet (import-maisi's)
  QString labels;   // a folder of label volumes, or one file
  DatasetLabelSource source = DatasetLabelSource::label_maps;
  QString segmentation_format =
      QStringLiteral("totalsegmentator");  // prepare-label --from: totalsegmentator, vista3d or a map JSON
  int cases = 4;
  int base_seed = 0;
  bool quality_check = false;
  QString quality_statistics;  // image_median_statistics_ct.json's layout
  int quality_tries = 2;
  bool audit = false;
  QString audit_train;  // the training CT the audit compares with (a folder)
  DatasetExport export_format = DatasetExport::nifti;
  QString output_dir;  // the dataset folder: new, or empty

  // "Field: reason" lines (dataset_field's names), empty when the request can
  // run: a few stat calls and directory listings, so that nothing the engine
  // would refuse at the end (the audit's training folder) is found after
  // every case was generated.
  QStringList validate() const;
};

struct DatasetStep {
  QString name;           // "prepare-label", "generate", "export-dicom", "evaluate", "dataset-card"
  QStringList arguments;  // the engine's arguments, the verb first
};

struct DatasetCase {
  int index = 0;
  QString label_source;  // the file the case's label comes from
  QString label_map;     // what generate reads (label_source, or prepare-label's output)
  int seed = 0;
  QString image;  // what generate writes
  QString label;
  QString quality_report;  // ..._quality.json (with the quality check)
  QString dicom_dir;       // with the DICOM export
  std::vector<DatasetStep> steps;
};

struct SyntheticDatasetPlan {
  std::vector<DatasetCase> cases;
  std::vector<DatasetStep> finish;  // the audit and the card
  QString pairs_dir;                // DATASET/pairs
  QString card;                     // DATASET/pairs/dataset-card.md
};

// The label volumes `labels` names (a file, or a folder's volume files by
// name); empty when there are none.
QStringList dataset_label_files(const QString& labels);

// The plan of a valid request (validate() first).
SyntheticDatasetPlan plan_synthetic_dataset(const SyntheticDatasetRequest& request);

}  // namespace medsynth::app

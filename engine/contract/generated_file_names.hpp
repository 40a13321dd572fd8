// The names of the files `generate` writes, in one place for the engine that
// writes them (diffusion/generate_stage) and the console that plans and
// reads them (app/launch/synthetic_dataset_request): an image per seed and
// rank, with a label map the image/label pair, and the organ quality check's
// report beside it. No LibTorch, no Qt (medsynth_contract).
#pragma once

#include <cstdint>
#include <string>

namespace medsynth {

// The file name of image k (0-based) under a world of `world` ranks:
// "image_seed7_rank0.nii.gz"; with a label map (`paired`), the image's half
// of an image/label pair: "sample_seed7_rank0_image.nii.gz".
std::string generated_image_name(std::int64_t base_seed, int image, int world, bool paired = false);

// The label file written beside a paired image (..._image.nii.gz ->
// ..._label.nii.gz). Throws RuntimeError for a name that is no pair's image.
std::string paired_label_path(const std::string& image_path);

// "sample_seed7_rank0_image.nii.gz" -> "sample_seed7_rank0_quality.json"
// (generate --quality-check's tries). Throws as paired_label_path.
std::string quality_report_path(const std::string& image_path);

// "image_seed7_rank0.nii.gz" -> "image_seed7_rank0_inpaint.json",
// "sample_seed7_rank0_image.nii.gz" -> "sample_seed7_rank0_inpaint.json"
// (generate --inpaint: the region and its seam). RuntimeError for a name
// that is not a .nii.gz.
std::string inpaint_report_path(const std::string& image_path);

}  // namespace medsynth

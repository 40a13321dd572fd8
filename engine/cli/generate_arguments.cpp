#include "cli/generate_arguments.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace medsynth::cli {

void add_generate_options(CLI::App& cmd, GenerateArguments& a) {
  cmd.add_option("run_dir", a.run_dir, "Run directory of a task: ldm job (or one made by import-maisi)")->required();
  cmd.add_option("overrides", a.overrides,
                 "key=value overrides, e.g. scheduler.num_inference_steps=50 generate.decode_tile=8");
  cmd.add_option("--num-images", a.num_images, "Images in total (default: generate.num_images, 0 = one per rank)");
  cmd.add_option("--base-seed", a.base_seed,
                 "Seed of image 0 (default: generate.base_seed); image k uses base_seed + k");
  cmd.add_option("--output-dir", a.output_dir, "Where to write (default: RUN_DIR/output); existing files are kept");
  cmd.add_option("--label", a.label,
                 "A label map that steers the run's ControlNet (MAISI image-from-mask): the images take its grid and "
                 "are written as sample_seed{S}_rank{R}_image.nii.gz beside a copy of it, ..._label.nii.gz")
      ->check(CLI::ExistingFile);
  cmd.add_option("--quality-check", a.quality_check,
                 "With --label: judge each image's organ median HU against this statistics file (the layout of "
                 "NV-Generate's image_median_statistics_ct.json) and sample a failing image again with the next "
                 "seed; the tries are written beside it as ..._quality.json")
      ->check(CLI::ExistingFile);
  cmd.add_option("--quality-tries", a.quality_tries,
                 "Tries per image under --quality-check, the first included (default 2, NV-Generate's)")
      ->check(CLI::Range(1, 100));
  cmd.add_option("--inpaint", a.inpaint,
                 "A real CT whose region (--region) is made again and every other voxel kept: the images take its "
                 "grid; with --label the ControlNet steers by that (edited) label map of the CT")
      ->check(CLI::ExistingFile);
  cmd.add_option("--region", a.region,
                 "With --inpaint: a mask or label map on the CT's grid; its nonzero voxels (or --region-classes) "
                 "are regenerated")
      ->check(CLI::ExistingFile);
  cmd.add_option("--region-classes", a.region_classes,
                 "With --inpaint: the labels of --region that make the region, e.g. 23 (a tumour); default: every "
                 "nonzero voxel")
      ->delimiter(',');
  cmd.add_option("--inpaint-margin", a.inpaint_margin,
                 "With --inpaint: voxels the region grows by before the decoded voxels are copied in (default 2)")
      ->check(CLI::Range(0, 64));
  cmd.add_option("--data", a.data,
                 "task: translation run: the cases to translate (a folder of case folders or a datalist JSON; "
                 "default: the job's data), written as OUTPUT/<case>/<case>-<target>.nii.gz");
  cmd.add_flag("--overwrite", a.overwrite,
               "task: translation run: replace translations an earlier generate wrote (an input file is never "
               "replaced); a task: ldm run keeps its existing images and writes the missing ones");
  cmd.add_flag("--json", a.json,
               "The event stream on stdout (run_started, an artifact and a progress event per image, "
               "run_finished), also appended to RUN/events.jsonl; without it stdout lists the images");
}

std::vector<std::string> worker_generate_argv(const GenerateArguments& a) {
  const auto absolute = [](const std::string& path) { return fs::absolute(path).string(); };
  std::vector<std::string> argv{"generate", a.run_dir};
  argv.insert(argv.end(), a.overrides.begin(), a.overrides.end());
  if (a.num_images >= 0) argv.insert(argv.end(), {"--num-images", std::to_string(a.num_images)});
  if (a.base_seed >= 0) argv.insert(argv.end(), {"--base-seed", std::to_string(a.base_seed)});
  if (!a.output_dir.empty()) argv.insert(argv.end(), {"--output-dir", a.output_dir});
  if (!a.label.empty()) argv.insert(argv.end(), {"--label", absolute(a.label)});
  if (!a.quality_check.empty()) argv.insert(argv.end(), {"--quality-check", absolute(a.quality_check)});
  if (!a.quality_check.empty() || a.quality_tries != GenerateArguments{}.quality_tries)
    argv.insert(argv.end(), {"--quality-tries", std::to_string(a.quality_tries)});
  if (!a.inpaint.empty()) argv.insert(argv.end(), {"--inpaint", absolute(a.inpaint)});
  if (!a.region.empty()) argv.insert(argv.end(), {"--region", absolute(a.region)});
  if (!a.region_classes.empty()) {
    std::string classes;
    for (int c : a.region_classes) classes += (classes.empty() ? "" : ",") + std::to_string(c);
    argv.insert(argv.end(), {"--region-classes", classes});
  }
  if (a.inpaint_margin != GenerateArguments{}.inpaint_margin)
    argv.insert(argv.end(), {"--inpaint-margin", std::to_string(a.inpaint_margin)});
  if (!a.data.empty()) argv.insert(argv.end(), {"--data", absolute(a.data)});
  if (a.overwrite) argv.push_back("--overwrite");
  if (a.json) argv.push_back("--json");
  return argv;
}

}  // namespace medsynth::cli

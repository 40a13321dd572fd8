// `medsynth-engine regenerate FILE [--out PATH]`: makes a generated volume
// again from the provenance in its header (diffusion/generation_provenance.hpp)
// and compares the two voxel for voxel. Exit 0: identical bit for bit. Exit 1
// with what differs: the checkpoints changed since (their hashes), or the
// voxels differ, listed with what else is not the same as when it was made
// (engine version, thread count, device): results are reproducible on the
// same kind of machine with the same thread count, not across them.
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "diffusion/generate_stage.hpp"
#include "contract/generation_provenance.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

GenerationProvenance provenance_of(const std::string& file) {
  for (const auto& text : read_nifti_comment_extensions(file))
    if (auto p = parse_provenance(text, file)) return *p;
  throw UsageError(file + ": has no medsynth provenance (made by another tool, or by medsynth before it recorded one)");
}

// FNV-1a can be collided by anyone: a file whose checkpoints were recorded
// with it proves nothing about them (issue 37).
void refuse_forgeable_hashes(const std::string& file, const GenerationProvenance& p) {
  if (p.hash_algorithm != k_provenance_hash)
    throw UsageError(file + ": its provenance names its checkpoints by " + p.hash_algorithm + " hashes (medsynth " +
                     p.engine_version +
                     "), which anyone can forge; regenerate trusts SHA-256 only. Make the image again with generate");
}

// Every checkpoint (and label map, ControlNet and its config) the provenance
// names is there with the hash it recorded.
void refuse_changed_inputs(const std::string& file, const GenerationProvenance& p) {
  std::string changed;
  std::vector<std::pair<std::string, std::string>> inputs{{p.unet_checkpoint, p.unet_checkpoint_hash}, {p.autoencoder_checkpoint, p.autoencoder_checkpoint_hash}};
  if (!p.label.empty())
    inputs.insert(inputs.end(), {{p.label, p.label_hash},
                                 {p.controlnet_checkpoint, p.controlnet_checkpoint_hash},
                                 {p.controlnet_network_config, p.controlnet_network_config_hash}});
  if (!p.inpaint_source.empty())
    inputs.insert(inputs.end(), {{p.inpaint_source, p.inpaint_source_hash}, {p.inpaint_region, p.inpaint_region_hash}});
  for (const auto& [path, recorded] : inputs) {
    if (!fs::is_regular_file(path))
      changed += "\n  " + path + ": missing";
    else if (file_sha256(path) != recorded)  // named, never its hash: the provenance may name any file (issue 37)
      changed += "\n  " + path + ": changed since";
  }
  if (!changed.empty())
    throw RuntimeError(file + ": cannot be made again, its checkpoints are not the ones that made it:" + changed);
}

// The recorded thread count, or fewer on a machine with fewer cores (said).
void set_replay_threads(const std::string& file, const GenerationProvenance& p, int threads) {
  const int replay_threads = replay_thread_count(p, threads, std::thread::hardware_concurrency());
  if (replay_threads < p.threads)
    std::cerr << file << ": made with " << p.threads << " threads, this machine has " << replay_threads
              << " cores: regenerating with " << replay_threads << " (--threads " << p.threads
              << " insists on the recorded count, which bit-for-bit results need)\n";
  at::set_num_threads(replay_threads);
}

// --out, or a temporary file when it is empty.
std::string copy_path_of(const GenerationProvenance& p, std::string out) {
  // An image made from a label map is half of a pair: its copy is named like one.
  const std::string suffix = p.label.empty() ? ".nii.gz" : "_image.nii.gz";
  if (out.empty())
    out = (fs::temp_directory_path() / ("medsynth-regenerated-" + std::to_string(::getpid()) + suffix)).string();
  if (!p.label.empty() &&
      (out.size() < suffix.size() || out.compare(out.size() - suffix.size(), suffix.size(), suffix) != 0))
    throw UsageError(
        "--out: " + out +
        ": this image was made from a label map; name its copy ..._image.nii.gz (the label goes beside it)");
  return out;
}

GenerateOptions generate_options_of(const GenerationProvenance& p) {
  GenerateOptions o;
  o.unet_checkpoint = p.unet_checkpoint;
  o.autoencoder_checkpoint = p.autoencoder_checkpoint;
  o.scale_factor = p.scale_factor;
  o.label = p.label;
  o.controlnet_checkpoint = p.controlnet_checkpoint;
  o.controlnet_network_config = p.controlnet_network_config;
  o.inpaint = InpaintOptions{p.inpaint_source, p.inpaint_region, p.inpaint_region_classes, p.inpaint_margin};
  return o;
}

// The image made again at `out` (with its label map beside it when it was
// made from one).
void make_copy(const JobSpec& job, const GenerateOptions& o, const GenerationProvenance& p, const std::string& file,
               const std::string& out) {
  // Never over the volume being checked (a tampered file would be replaced
  // and then "made again bit for bit"), and never at the cost of an existing
  // --out: the copy is made aside, in --out's folder, and takes its name only
  // once it exists. Nothing is deleted that this run did not make.
  std::error_code same_error;
  if (fs::exists(out) && fs::equivalent(out, file, same_error))
    throw UsageError("--out: " + out + " is the volume being checked; name another file");
  const fs::path final_path = out;
  const fs::path aside = final_path.parent_path() / (".regenerating-" + std::to_string(::getpid()) + "-" + final_path.filename().string());
  GeneratedImage image{aside.string(), p.seed, p.rank, 0};
  const auto discard_aside = [&] {
    std::error_code ignored;
    fs::remove(aside, ignored);
    const std::string a = aside.string();
    fs::remove(a.substr(0, a.size() - std::string(".nii.gz").size()) + ".partial.nii.gz", ignored);  // generate_image's own aside
    if (!p.label.empty()) fs::remove(paired_label_path(aside.string()), ignored);
    if (!p.inpaint_source.empty()) fs::remove(inpaint_report_path(aside.string()), ignored);
  };
  try {
    generate_image(job, o, image, p.world_size);
    // The copy is compared voxel for voxel; its seam report is the original's.
    if (!p.inpaint_source.empty()) fs::remove(inpaint_report_path(aside.string()));
    if (!p.label.empty()) fs::rename(paired_label_path(aside.string()), paired_label_path(out));
    fs::rename(aside, final_path);
  } catch (...) {
    discard_aside();
    throw;
  }
}

// How the copy's voxels and geometry compare with the original's.
struct VoxelComparison {
  std::size_t differing = 0;
  double worst = 0;
  bool same_size = false;
  bool same_geometry = false;
};

VoxelComparison compare_voxels(const Volume& a, const Volume& b) {
  VoxelComparison c;
  c.same_size = a.size == b.size;
  if (c.same_size)
    for (std::size_t i = 0; i < a.voxels.size(); ++i)
      if (std::memcmp(&a.voxels[i], &b.voxels[i], sizeof(float)) != 0) {
        ++c.differing;
        c.worst = std::max(c.worst, std::abs(static_cast<double>(a.voxels[i]) - b.voxels[i]));
      }
  c.same_geometry = a.spacing == b.spacing && a.origin == b.origin && a.direction == b.direction;
  return c;
}

// The lines of what differs, and of what else is not as when it was made.
std::string differences_of(const VoxelComparison& c, std::size_t voxels, const GenerationProvenance& p,
                           const GenerationProvenance& again) {
  std::string why;
  if (!c.same_size) why += "\n  size differs";
  if (!c.same_geometry) why += "\n  geometry (spacing, origin or direction) differs";
  if (c.differing) {
    char line[128];
    std::snprintf(line, sizeof line, "\n  %zu of %zu voxels differ, by up to %.6g", c.differing, voxels, c.worst);
    why += line;
  }
  if (again.engine_version != p.engine_version)
    why += "\n  engine " + again.engine_version + " now, " + p.engine_version + " then";
  if (again.threads != p.threads)
    why += "\n  " + std::to_string(again.threads) + " threads now, " + std::to_string(p.threads) + " then";
  if (again.device != p.device) why += "\n  device " + again.device + " now, " + p.device + " then";
  return why;
}

int run_regenerate(const std::string& file, std::string out, int threads) {
  const GenerationProvenance p = provenance_of(file);
  refuse_forgeable_hashes(file, p);
  refuse_changed_inputs(file, p);

  const JobSpec job = load_job_text(p.job_yaml, file + " (provenance job)");
  set_replay_threads(file, p, threads);
  out = copy_path_of(p, out);
  const GenerateOptions o = generate_options_of(p);
  make_copy(job, o, p, file, out);
  const GenerationProvenance again = provenance_of(out);

  const Volume a = read_volume(file), b = read_volume(out);
  const VoxelComparison c = compare_voxels(a, b);
  if (c.same_size && c.same_geometry && c.differing == 0) {
    std::cout << file << ": made again bit for bit (" << a.voxels.size() << " voxels, seed " << p.seed << ", "
              << p.scheduler << " " << p.num_inference_steps << " steps, " << again.threads << " threads): " << out
              << "\n";
    return 0;
  }
  throw RuntimeError(file + ": made again (" + out +
                     ") but not bit for bit:" + differences_of(c, a.voxels.size(), p, again));
}

}  // namespace

Action add_regenerate_verb(CLI::App& app) {
  struct Args {
    std::string file, out;
    int threads = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("regenerate", "Make a generated volume again from its recorded provenance and compare bit for bit");
  cmd->add_option("file", a->file, "A volume written by generate (its header records what made it)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", a->out, "Where to write the new copy (default: a temporary file); never the volume being checked");
  cmd->add_option("--threads", a->threads, "Intra-op threads (default: the recorded count, which bit-for-bit results need)");
  return [a] { return run_regenerate(a->file, a->out, a->threads); };
}

}  // namespace medsynth::cli

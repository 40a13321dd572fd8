#include "diffusion/latent_files.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "config/job_spec.hpp"
#include "config/maisi_models.hpp"
#include "core/error.hpp"
#include "data/image_conditioning.hpp"
#include "diffusion/maisi_embedding_files.hpp"
#include "state/tensor_file.hpp"
#include "volume/atomic_file.hpp"
#include "core/bounded_json.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

constexpr const char* suffix = "_emb.safetensors";

nlohmann::json read_json(const std::string& path) {
  return read_bounded_json_file(path, k_document_json_cap, "cannot open (the latent's metadata is missing)");
}

}  // namespace

LatentRequirements latent_requirements(const JobSpec& job) {
  LatentRequirements required;
  required.channels = ldm_latent_channels(job);
  required.channels_field =
      job.ldm.first_stage == "vqgan" ? "model.vqgan.embedding_dim" : "model.autoencoder.latent_channels";
  required.num_class_embeds = job.model.diffusion_unet.num_class_embeds;
  return required;
}

void check_latent(const LatentRecord& r, const LatentRequirements& required) {
  if (required.channels > 0 && r.latent.defined() && r.latent.size(0) != required.channels)
    throw DataError(r.file, "has " + std::to_string(r.latent.size(0)) + " channels; " + required.channels_field +
                                " is " + std::to_string(required.channels));
  if (required.num_class_embeds > 0 && r.modality >= required.num_class_embeds)
    throw DataError(r.file + ".json", "modality class " + std::to_string(r.modality) + " (" +
                                          maisi_modality_name(r.modality) + ") is beyond the UNet's " +
                                          std::to_string(required.num_class_embeds) +
                                          " classes (model.diffusion_unet.num_class_embeds)");
}

std::string latent_path(const std::string& dir, const std::string& id) { return dir + "/" + id + suffix; }

ImageConditioning conditioning_of(const LatentRecord& r) {
  return {r.modality, r.top_region_index, r.bottom_region_index};
}

void set_conditioning(LatentRecord& r, const ImageConditioning& c) {
  r.modality = c.modality;
  r.top_region_index = c.top_region_index;
  r.bottom_region_index = c.bottom_region_index;
}

bool latent_conditioning_is(const std::string& dir, const std::string& id, const ImageConditioning& wanted) {
  const std::string json_path = dir + "/" + id + "_emb.json";
  try {
    return read_image_conditioning(read_json(json_path), json_path) == wanted;
  } catch (const Error&) {
    return false;  // unreadable: encoded again, which writes it anew
  }
}

void write_latent(const std::string& dir, const LatentRecord& r) {
  fs::create_directories(dir);
  TensorFile file;
  file.tensors["latent"] = r.latent.to(at::kCPU, at::kFloat).contiguous();
  file.metadata["id"] = r.id;
  // The JSON first: a latent without its metadata is refused on read, and a
  // crash between the two leaves the stage incomplete, never inconsistent.
  nlohmann::json meta{{"id", r.id},
                      {"split", r.split},
                      {"image_spacing", r.image_spacing},
                      {"image_size", r.image_size},
                      {"latent_shape", r.latent.sizes().vec()},
                      {"stored", r.stored}};
  // The image's own class and body regions (its datalist entry's), under
  // NV-Generate's keys; absent: the job's generate.* at training.
  write_image_conditioning(conditioning_of(r), meta);
  write_string_atomically(dir + "/" + r.id + "_emb.json", meta.dump(2) + "\n");
  write_tensor_file(latent_path(dir, r.id), file);
}

std::vector<LatentRecord> read_latents(const std::string& dir, const std::string& split,
                                       const LatentRequirements& required) {
  if (!fs::is_directory(dir)) throw DataError(dir, "is not a folder of latents (run the encode stage first)");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > std::string(suffix).size() && name.ends_with(suffix)) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<LatentRecord> out;
  if (files.empty() && holds_only_maisi_embeddings(dir)) out = read_maisi_embeddings(dir, split, required);
  for (const auto& path : files) {
    const std::string json_path = path.substr(0, path.size() - std::string(".safetensors").size()) + ".json";
    const auto meta = read_json(json_path);
    LatentRecord r;
    try {
      r.id = meta.at("id").get<std::string>();
      r.split = meta.at("split").get<std::string>();
      r.image_spacing = meta.at("image_spacing").get<std::array<double, 3>>();
      r.image_size = meta.at("image_size").get<std::array<std::int64_t, 3>>();
      r.stored = meta.value("stored", "mean");
    } catch (const std::exception& e) {
      throw DataError(json_path, std::string("lacks a field or has a wrong type: ") + e.what());
    }
    set_conditioning(r, read_image_conditioning(meta, json_path));
    if (!split.empty() && r.split != split) continue;
    TensorFile file = read_tensor_file(path);
    auto it = file.tensors.find("latent");
    if (it == file.tensors.end() || it->second.dim() != 4) throw DataError(path, "holds no 4-D tensor named 'latent'");
    r.latent = it->second;
    r.file = path;
    check_latent(r, required);
    out.push_back(std::move(r));
  }
  if (out.empty())
    throw DataError(dir, "holds no " + (split.empty() ? std::string() : split + " ") + "latents (*" + suffix +
                             ", or NV-Generate's *_emb.nii.gz)");
  return out;
}

namespace {

bool usable_scale(double scale) {
  return std::isfinite(scale) && scale >= k_min_scale_factor && scale <= k_max_scale_factor;
}

std::string scale_range() {
  std::ostringstream s;
  s << "[" << k_min_scale_factor << ", " << k_max_scale_factor << "]";
  return s.str();
}

}  // namespace

void write_scale_factor(const std::string& file, double scale_factor, double latent_std) {
  if (!usable_scale(scale_factor)) {
    std::ostringstream s;
    s << file << ": the latent scale " << scale_factor << " (latent std " << latent_std << ") is outside "
      << scale_range() << ": the latents are constant or not finite; check the autoencoder, or set ldm.scale_factor";
    throw RuntimeError(s.str());
  }
  nlohmann::json j{{"scale_factor", scale_factor}, {"latent_std", latent_std}};
  write_string_atomically(file, j.dump(2) + "\n");
}

double read_scale_factor(const std::string& file) {
  if (!fs::exists(file)) throw DataError(file, "is missing: the run's latent scale, which its encode stage writes");
  const auto j = read_json(file);
  if (!j.is_object() || !j.contains("scale_factor") || !j["scale_factor"].is_number())
    throw DataError(file, "has no number scale_factor");
  const double scale = j["scale_factor"].get<double>();
  if (!usable_scale(scale))
    throw DataError(file, "scale_factor " + j["scale_factor"].dump() + " is outside " + scale_range() +
                              " (1/std of the latents; MAISI's are near 1)");
  return scale;
}

std::string scale_factor_file_of(const RunDirectory& run, const std::string& embedding_dir) {
  const std::string own = run.scale_factor_file();
  const std::string older = embedding_dir + "/" + k_scale_factor_file;
  return !fs::exists(own) && !embedding_dir.empty() && fs::exists(older) ? older : own;
}

std::string label_path(const std::string& dir, const std::string& id) { return dir + "/" + id + "_label.safetensors"; }

void write_label(const std::string& dir, const std::string& id, const at::Tensor& label) {
  // The encode stage writes an image's label before its latent, so the
  // folder may not exist yet (task controlnet into a new ldm.embedding_dir).
  fs::create_directories(fs::path(label_path(dir, id)).parent_path());
  TensorFile file;
  file.tensors["label"] = label.to(at::kCPU, at::kFloat).contiguous();
  write_tensor_file(label_path(dir, id), file);
}

at::Tensor read_label(const std::string& dir, const std::string& id) {
  const std::string path = label_path(dir, id);
  if (!fs::exists(path)) throw DataError(path, "missing: the encode stage of task controlnet writes one per image");
  TensorFile file = read_tensor_file(path);
  auto it = file.tensors.find("label");
  if (it == file.tensors.end() || it->second.dim() != 4) throw DataError(path, "holds no 4-D tensor named 'label'");
  return it->second;
}

}  // namespace medsynth

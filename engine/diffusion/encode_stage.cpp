#include "diffusion/encode_stage.hpp"

#include <ATen/ATen.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/volume_file_names.hpp"
#include "data/image_conditioning.hpp"
#include "data/preprocess.hpp"
#include "config/maisi_models.hpp"
#include "core/error.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_tensor.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "diffusion/latent_files.hpp"
#include "diffusion/maisi_embedding_files.hpp"
#include "dist/process_group.hpp"
#include "events/run_logger.hpp"
#include "state/device_choice.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {

namespace {

// The label map of item i (the one its case lists: a datalist's "label", a
// BraTS folder's data.label contrast; else the one paired with it by name),
// on the preprocessed image's grid, in the networks' axis order.
void write_label_of(const JobSpec& job, const VolumeDataset& data, std::size_t i, const std::string& dir,
                    const std::string& id) {
  const std::string& image_path = data.path(i);
  const std::optional<std::string> source =
      data.label_path(i).empty() ? paired_label_name(image_path) : std::optional<std::string>(data.label_path(i));
  if (!source || !fs::exists(*source))
    throw DataError(image_path.empty() ? "data.path" : image_path,
                    "has no label map beside it" + (source ? " (" + *source + ")" : std::string()) +
                        "; task controlnet trains on image/label pairs named X_image.nii.gz and X_label.nii.gz, "
                        "a datalist's \"label\", or a case folder's data.label contrast (BraTS: seg)");
  const Volume label = preprocess_label(read_volume(*source), job.data, *source);
  const Volume& image = data.get(i);
  if (label.size != image.size)
    throw DataError(*source, "is " + std::to_string(label.size[0]) + " x " + std::to_string(label.size[1]) + " x " +
                                 std::to_string(label.size[2]) + " voxels after preprocessing, its image " +
                                 std::to_string(image.size[0]) + " x " + std::to_string(image.size[1]) + " x " +
                                 std::to_string(image.size[2]) + ": a label map must share its image's grid");
  auto t = volume_to_tensor(label);  // [1, 1, Z, Y, X]
  if (job.model.tensor_axes == "xyz") t = t.permute({0, 1, 4, 3, 2});
  write_label(dir, id, t.squeeze(0));
}

// Every image's own class (its datalist entry's) is one the UNet has, checked
// before the first image is encoded: NV-Generate would index its class
// embedding out of range at the first step, after hours of encoding.
void refuse_classes_beyond_the_unet(const JobSpec& job, const VolumeDataset& data) {
  const int classes = job.model.diffusion_unet.num_class_embeds;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const int modality = data.conditioning(i).modality;
    if (modality < 0) continue;
    if (classes <= 0)
      throw DataError(data.path(i),
                      "its entry names modality " + maisi_modality_name(modality) +
                          ", but this UNet takes no class label (model.diffusion_unet.num_class_embeds is 0)");
    if (modality >= classes)
      throw DataError(data.path(i), "its entry's modality class " + std::to_string(modality) + " (" +
                                        maisi_modality_name(modality) + ") is beyond the UNet's " +
                                        std::to_string(classes) + " classes (model.diffusion_unet.num_class_embeds)");
  }
}

// A folder of NV-Generate's embeddings is MONAI's axis order: it trains xyz
// (MAISI) networks only.
void accept_given_embeddings(const JobSpec& job, const EncodeOptions& o) {
  if (job.model.tensor_axes != "xyz")
    throw UsageError("ldm.embedding_dir: " + o.embedding_dir +
                     " holds NV-Generate's [X, Y, Z, C] latents (*_emb.nii.gz), "
                     "MONAI's axis order; they train xyz (MAISI) networks only (model.tensor_axes is " +
                     job.model.tensor_axes + ")");
  if (o.logger) o.logger->info("reading NV-Generate's embeddings in " + o.embedding_dir + "; nothing to encode");
}

// What every NV-Generate embedding of this job says beside its latent (the
// image's origin and direction are set per image).
MaisiEmbeddingInfo maisi_embedding_info_of(const JobSpec& job) {
  MaisiEmbeddingInfo maisi;
  const auto& u = job.model.diffusion_unet;
  maisi.modality = maisi_modality_name(job.generate.modality);
  if (u.include_top_region_index_input) maisi.top_region_index = job.generate.top_region_index;
  if (u.include_bottom_region_index_input) maisi.bottom_region_index = job.generate.bottom_region_index;
  return maisi;
}

// What encoding this rank's images needs, and what it counts.
struct EncodePass {
  const JobSpec& job;
  const EncodeOptions& o;
  int rank = 0;
  int world = 1;
  c10::Device device;
  bool maisi_layout = false;
  MaisiEmbeddingInfo& maisi;  // origin and direction set per image
  EncodeSummary& summary;
};

// One image of a split, and its place in the round robin over train then val.
struct EncodeItem {
  const std::string& split;
  VolumeDataset& data;
  std::size_t index = 0;     // in data
  std::size_t position = 0;  // over train then val
};

// The latent of `id` is there, written with this conditioning (and, for
// NV-Generate's layout, its embedding files too).
bool latent_is_current(const EncodePass& p, const std::string& id, const ImageConditioning& conditioning) {
  return fs::exists(latent_path(p.o.embedding_dir, id)) &&
         latent_conditioning_is(p.o.embedding_dir, id, conditioning) &&
         (!p.maisi_layout || maisi_embedding_exists(p.o.embedding_dir, id));
}

// The image's latent, [1, C, ...]: the mean (or codes), or with
// ldm.encode_sample a sample of q(z|x).
at::Tensor encode_image(const EncodePass& p, const FirstStage& first_stage, const Volume& image, std::size_t position) {
  const JobSpec& job = p.job;
  const c10::Device device = p.device;
  // xyz networks (MAISI's) see MONAI's [x, y, z] arrays: the axes turn
  // here, where the data enters, so the latents are in the UNet's order.
  auto x = volume_to_tensor(image).to(device);
  if (job.model.tensor_axes == "xyz") x = x.permute({0, 1, 4, 3, 2}).contiguous();
  at::Tensor z;
  if (!job.ldm.encode_sample) {
    z = first_stage.encode_tiled(x, job.ldm.encode_tile);  // whole when encode_tile is 0
  } else {
    auto [mu, log_var] = first_stage.kl()->encode(x);  // validation: not with a VQ-GAN
    // A sample of q(z|x) from a generator keyed on the image, so a re-run writes the same file.
    auto gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(job.training.base_seed) * 1000003u +
                                                        position);
    z = mu + at::exp(0.5 * log_var) * at::randn(mu.sizes(), gen, mu.options().device(at::kCPU)).to(device);
  }
  return z;
}

LatentRecord latent_record_of(const JobSpec& job, const std::string& id, const std::string& split, const Volume& image,
                              const at::Tensor& z, const ImageConditioning& conditioning) {
  LatentRecord r;
  r.id = id;
  r.split = split;
  r.image_spacing = image.spacing;
  r.image_size = {static_cast<std::int64_t>(image.size[0]), static_cast<std::int64_t>(image.size[1]),
                  static_cast<std::int64_t>(image.size[2])};
  r.stored = job.ldm.encode_sample ? "sample" : "mean";
  r.latent = z.squeeze(0).to(at::kCPU, at::kFloat);
  set_conditioning(r, conditioning);
  return r;
}

// One image of this rank: its label map when the task wants one, then its
// latent unless a current one is there; `progress` after either.
void encode_item(const EncodePass& p, const FirstStage& first_stage, const EncodeItem& item,
                 const std::function<void()>& progress) {
  const JobSpec& job = p.job;
  const EncodeOptions& o = p.o;
  VolumeDataset& data = item.data;
  const std::size_t i = item.index;
  const std::string id = item.split + "-" + data.id(i);
  if (o.with_labels && !fs::exists(label_path(o.embedding_dir, id))) write_label_of(job, data, i, o.embedding_dir, id);
  // A latent written before its datalist entry named a class or body
  // region (or another one) is encoded again: it would train with the old.
  const ImageConditioning& conditioning = data.conditioning(i);
  if (latent_is_current(p, id, conditioning)) {
    ++p.summary.skipped;
    progress();
    return;
  }
  const Volume& image = data.get(i);
  const at::Tensor z = encode_image(p, first_stage, image, item.position);
  const LatentRecord r = latent_record_of(job, id, item.split, image, z, conditioning);
  // medsynth's file first: a folder with a .safetensors is never taken
  // for one of NV-Generate's (holds_only_maisi_embeddings).
  write_latent(o.embedding_dir, r);
  if (p.maisi_layout) {
    p.maisi.origin = image.origin;
    p.maisi.direction = image.direction;
    write_maisi_embedding(o.embedding_dir, r, p.maisi);
  }
  ++p.summary.written;
  progress();
  if (o.logger)
    o.logger->info("encoded " + id + " -> latent " + std::to_string(r.latent.size(0)) + "x" +
                   std::to_string(r.latent.size(1)) + "x" + std::to_string(r.latent.size(2)) + "x" +
                   std::to_string(r.latent.size(3)));
}

// This rank's share of the train and val images, each encoded unless its
// latent is already there.
void encode_this_ranks_images(const EncodePass& p) {
  const JobSpec& job = p.job;
  const FirstStage first_stage = load_first_stage(job, p.o.autoencoder_checkpoint, p.device);
  at::NoGradGuard no_grad;
  std::size_t position = 0;  // over train then val, so the split among ranks covers both
  const std::array<std::string, 2> splits{"train", "val"};
  std::vector<std::unique_ptr<VolumeDataset>> sets;
  for (const std::string& split : splits)
    sets.push_back(std::make_unique<VolumeDataset>(job.data, split, job.training.base_seed));
  for (const auto& set : sets) refuse_classes_beyond_the_unet(job, *set);
  const std::size_t all = sets[0]->size() + sets[1]->size();
  const auto mine = static_cast<std::int64_t>((all + static_cast<std::size_t>(p.world - 1 - p.rank)) /
                                              static_cast<std::size_t>(p.world));
  const std::function<void()> progress = [&] {
    if (p.o.on_progress) p.o.on_progress(p.summary.written + p.summary.skipped, mine);
  };
  for (std::size_t s = 0; s < splits.size(); ++s) {
    const std::string& split = splits[s];
    VolumeDataset& data = *sets[s];
    for (std::size_t i = 0; i < data.size(); ++i, ++position) {
      if (static_cast<int>(position % static_cast<std::size_t>(p.world)) != p.rank) continue;
      encode_item(p, first_stage, EncodeItem{split, data, i, position}, progress);
    }
  }
}

// The scale factor file from the train latents' std (or the job's own
// ldm.scale_factor), logged.
void write_train_latents_scale_factor(const JobSpec& job, const EncodeOptions& o) {
  double sum = 0, sq = 0, n = 0;
  // Each latent checked as it is read: a wrong folder fails at its first
  // file, not after every latent is in memory (issue 50 item 8).
  for (const auto& r : read_latents(o.embedding_dir, "train", latent_requirements(job))) {
    auto d = r.latent.to(at::kDouble);
    sum += d.sum().item<double>();
    sq += (d * d).sum().item<double>();
    n += static_cast<double>(d.numel());
  }
  const double mean = sum / n, std = std::sqrt(std::max(sq / n - mean * mean, 1e-12));
  const double scale = job.ldm.scale_factor > 0 ? job.ldm.scale_factor : 1.0 / std;
  fs::create_directories(fs::path(o.scale_factor_file).parent_path());
  write_scale_factor(o.scale_factor_file, scale, std);
  if (o.logger) o.logger->info("latent std " + std::to_string(std) + ", scale factor " + std::to_string(scale));
}

}  // namespace

EncodeSummary encode_dataset(const JobSpec& job, const EncodeOptions& o) {
  const int rank = o.dist ? o.dist->rank() : 0;
  const int world = o.dist ? o.dist->world_size() : 1;
  const c10::Device device = o.dist ? o.dist->device() : training_device(job.training.device, 0);
  EncodeSummary summary;
  // A folder of NV-Generate's own embeddings is the training input as it is:
  // nothing is encoded into it (the scale factor below is still computed).
  const bool given = holds_only_maisi_embeddings(o.embedding_dir);
  if (given) accept_given_embeddings(job, o);
  const bool maisi_layout = job.ldm.embedding_layout == "maisi";
  MaisiEmbeddingInfo maisi;
  if (maisi_layout) maisi = maisi_embedding_info_of(job);
  if (!given) encode_this_ranks_images(EncodePass{job, o, rank, world, device, maisi_layout, maisi, summary});
  if (o.dist) o.dist->barrier("encode");
  if (rank == 0) {
    if (job.ldm.scale_factor > 0 || !fs::exists(o.scale_factor_file)) write_train_latents_scale_factor(job, o);
  }
  if (o.dist) o.dist->barrier("scale factor");
  summary.scale_factor = read_scale_factor(o.scale_factor_file);
  return summary;
}

}  // namespace medsynth

// The typed job specification: what a researcher writes in a job file (YAML or
// JSON), with every default taken from the seed workflows (MAISI autoencoder
// training, the KL-autoencoder multi-GPU guide). Loaded and validated by
// job_loader.hpp; the resolved job (all defaults filled in) is written to each
// run directory as job.yaml. Plain data: no LibTorch, no ITK, no Qt, so the
// console can link it to edit and validate jobs. Every struct compares with ==
// (field by field), e.g. to see whether an edited job differs from the file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/autoencoder_kl_options.hpp"
#include "config/diffusion_spec.hpp"
#include "config/patch_discriminator_options.hpp"
#include "config/resnet3d_options.hpp"
#include "config/vector_quantizer_options.hpp"

namespace medsynth {

// Where training volumes come from. "simulated" is the seeds' default mode
// (MAISI: "Use real medical imaging data instead of simulated").
enum class DataSource { simulated, folder, csv, datalist };
enum class Modality { ct, mri };

struct DataSpec {
  DataSource source = DataSource::simulated;
  std::string path;                 // folder of .nii/.nii.gz, DICOM folders, or a CSV manifest (column "image")
  // Multi-contrast cases (data/case_listing.hpp): a folder of case folders
  // (BraTS) or a MONAI/MAISI datalist JSON. `channels` names the contrasts
  // read as input channels, in order; `target` the contrast task translation
  // generates from them; `label` the segmentation ("seg"). Empty: one image
  // per case. A datalist's entries are under `datalist_key`, their paths
  // relative to `root` ("": the JSON's folder).
  std::vector<std::string> channels;
  std::string target;
  std::string label;
  std::string datalist_key = "training";
  std::string root;
  Modality modality = Modality::ct;
  // Simulated phantoms (source == simulated).
  int num_train = 24;
  int num_val = 4;
  std::array<int, 3> phantom_size{64, 64, 64};           // voxels x, y, z
  std::array<double, 3> phantom_spacing{4.0, 4.0, 4.0};  // mm
  double noise_hu = 10.0;           // Gaussian noise in HU added to phantoms
  // Real data split (folder / csv): the last val_fraction of the sorted list is held out.
  double val_fraction = 0.2;
  int max_volumes = 0;              // use only the first N listed volumes, before the split (0: all)
  // Preprocessing (MAISI: ScaleIntensityRange a_min=-1000, a_max=1000 -> [0,1], clipped).
  std::array<double, 2> ct_window{-1000.0, 1000.0};
  std::array<double, 2> mri_percentiles{0.5, 99.5};
  // MR values outside the percentiles clamped to [0, 1]; false keeps them
  // (NV-Generate's MR preprocessing: percentiles 0-99.5, no clip; import-maisi
  // sets both for MR models).
  bool mri_clip = true;
  std::optional<std::array<double, 3>> target_spacing;   // resample to this spacing (mm) if set
  // NV-Generate's preprocessing for MAISI networks (set by import-maisi):
  // voxel axes reoriented to these anatomical directions (MONAI Orientationd;
  // "": as stored), and each axis resized (trilinear) to the nearest multiple
  // of size_multiple voxels, at least one (NV-Generate: 128; 0: off).
  std::string orientation;
  int size_multiple = 0;
  std::array<int, 3> patch_size{32, 32, 32};             // random training patch (x, y, z)
  // task vqgan: patches on a grid (seed 002: 128^3, stride 128) instead of at
  // random. Stride 0 on an axis: the patch size there (no overlap).
  std::array<int, 3> patch_stride{0, 0, 0};
  double patch_min_foreground = 0.0;  // keep only grid patches with at least this share of foreground voxels
  double foreground_threshold = 0.1;  // normalised intensity above which a voxel is foreground (0.1: -800 HU)
  // task survival (seed 004): clinical covariate columns of the CSV manifest,
  // comma-separated ("" = none), and MONAI's SmartCacheDataset: hold
  // cache_rate of the volumes, replace replace_rate of the cache each epoch.
  std::string covariates;
  bool smart_cache = false;
  double replace_rate = 0.1;
  bool random_flip = true;
  // Loading (MONAI CacheDataset / DataLoader names).
  double cache_rate = 1.0;          // fraction of preprocessed volumes kept in memory
  int num_workers = 2;              // loader threads
  int prefetch = 2;                 // batches prepared ahead

  bool operator==(const DataSpec&) const = default;
};

// 3D PatchGAN discriminator (MONAI PatchDiscriminator), used when adv_weight > 0:
// the network's options (num_layers_d, channels) and when its term starts.
// Set its fields by name: a brace list would start with the base struct.
struct DiscriminatorSpec : PatchDiscriminatorOptions {
  int start_step = 0;               // generator adversarial loss switched on at this optimizer step

  bool operator==(const DiscriminatorSpec&) const = default;
};

// task vqgan: the vector-quantised bottleneck and the GAN schedule of the
// patch-based 3D VQ-GAN (seed 002; docs/vqgan.md). The encoder and decoder are
// model.autoencoder's (latent_channels is replaced by embedding_dim); the
// discriminator is model.discriminator's PatchGAN. The quantiser's options
// are the section's own fields (config/vector_quantizer_options.hpp).
// Set its fields by name, as DiscriminatorSpec's.
struct VqganSpec : VectorQuantizerOptions {
  int discriminator_iter_start = 10000;  // seed: the discriminators join at this optimizer step
  // medicaldiffusion's names: its "image" discriminator is the 2D one on one
  // random axial slice per patch, its "video" discriminator the 3D one on
  // the whole patch (model.discriminator's PatchGAN).
  double image_gan_weight = 1.0;  // seed: the 2D slice discriminator's generator loss
  double video_gan_weight = 0.5;  // seed: the 3D patch discriminator's generator loss
  double gan_feat_weight = 0.0;   // feature matching (L1 of discriminator features) for both
  bool operator==(const VqganSpec&) const = default;
};
struct ModelSpec {
  // MONAI AutoencoderKL as MAISI configures it, under MONAI's names: the
  // network's own options (its log-variance clamp is loss.logvar_clamp).
  AutoencoderKLOptions autoencoder;
  DiscriminatorSpec discriminator;
  DiffusionUnetOptions diffusion_unet;  // task ldm; in/out channels are ldm_latent_channels()
  VqganSpec vqgan;                      // task vqgan
  ResNet3dOptions resnet;               // task survival: MONAI's 3D ResNet (seed 004: resnet50)
  // The order of the networks' spatial axes: zyx, as medsynth's loaders give
  // volumes ([D, H, W] = z, y, x), or xyz, as MONAI's arrays hold them (NVIDIA's
  // MAISI weights, imported by `import-maisi`). Only generate reads xyz.
  std::string tensor_axes = "zyx";

  bool operator==(const ModelSpec&) const = default;
};

struct LossSpec {
  std::string recon_loss = "l1";    // l1 | l2 | l1_window (L1 with the window's ends as bounds, losses.cpp)
  double kl_weight = 1e-7;          // MAISI
  std::array<double, 2> logvar_clamp{-30.0, 20.0};  // stable KL: log-variance clamped before exp
  double adv_weight = 0.0;          // MAISI uses 0.1 on GPUs; 0 disables the discriminator
  double perceptual_weight = 0.0;   // task vqgan (seed: 0.1): needs perceptual_network
  std::string perceptual_network;   // MedicalNet (3D) or RadImageNet (2.5D) weights, the user's file
  double perceptual_fake_3d_ratio = 0.5;  // RadImageNet only: share of each axis' slices (MONAI's default)

  bool operator==(const LossSpec&) const = default;
};

struct CheckpointSpec {
  int every_steps = 0;              // 0: at every validation
  int keep_best = 3;
  std::string metric = "val/psnr";
  std::string mode = "max";         // max | min
  std::string resume;               // "", "auto" (the run's last.pt) or a checkpoint path
  // "": best checkpoints are best-<metric>-<value>-step<N>; else
  // <name_prefix>-epoch<EE>-<metric><value> (seed 002: vqgan-patches-epoch05-psnr31.42).
  std::string name_prefix;

  bool operator==(const CheckpointSpec&) const = default;
};

struct TrainingSpec {
  int epochs = 2;                   // MAISI: 2 for simulated data
  int max_steps = 0;                // 0: epochs decide; otherwise stop after this many optimizer steps
  int batch_size = 1;               // per rank (MAISI default)
  int gradient_accumulation_steps = 1;
  double lr = 1e-4;                 // MAISI autoencoder lr
  // adamw: decoupled weight decay (MAISI's autoencoder); adam: torch.optim.Adam,
  // weight decay added to the gradient (NV-Generate's diffusion and ControlNet
  // training, with weight_decay 0, where the two are the same update).
  std::string optimizer = "adamw";  // adamw | adam
  double weight_decay = 1e-5;
  std::array<double, 2> betas{0.9, 0.999};
  // ATen's fused Adam(W) kernel: one vectorised pass over each parameter
  // instead of torch's eight tensor ops per parameter (docs/performance.md,
  // issue 51). The same update up to rounding; the checkpoint's optimizer
  // state is the same either way, so a run may resume with the other one.
  bool fused_optimizer = true;
  int warmup_steps = 0;
  // polynomial: torch's PolynomialLR, lr x (1 - step / steps)^lr_power
  // (NV-Generate's diffusion training: power 2, over the whole run).
  std::string lr_schedule = "cosine";  // cosine | constant | polynomial
  double min_lr_ratio = 0.0;
  double lr_power = 2.0;
  // bf16 autocast on CPU, fp16 + dynamic loss scaling on CUDA. On by default
  // as in MAISI's training configs, and because bf16 is the faster CPU path
  // (docs/performance.md: 2.5x on an AMX CPU at 64^3).
  bool amp = true;
  double grad_clip_norm = 1.0;      // 0 disables clipping
  std::int64_t base_seed = 42;      // rank r uses base_seed + r
  bool deterministic = true;
  int val_every_steps = 50;
  int val_max_volumes = 0;          // 0: all held-out volumes
  // Validation reconstructs volumes window by window at the training patch
  // size (MONAI sliding_window_inference, as MAISI validates), blending
  // overlapping windows with a Gaussian; false: the whole volume at once.
  bool val_sliding_window = true;
  double val_overlap = 0.25;        // MONAI's default overlap
  // Exponential moving average of the weights (0 disables). When on,
  // validation, best checkpoints and eval use the averaged weights.
  double ema_decay = 0.0;
  int nan_max_bad_steps = 3;        // consecutive non-finite steps before rollback
  double nan_lr_factor = 0.5;       // LR multiplier applied on rollback
  int num_threads = 0;              // intra-op threads, 0: all cores
  // Draw each sample's training noise (the VAE's reparameterisation) from
  // (seed, epoch, sample position) instead of the rank's generator: results
  // then do not depend on ranks x batch x accumulation (the dist tests use it).
  bool per_sample_noise = false;
  std::string device = "auto";      // auto | cpu | cuda
  // auto: the faster layout measured in docs/performance.md - contiguous with
  // bf16 autocast, channels_last_3d in fp32 (CPU); contiguous on CUDA.
  std::string memory_format = "auto";  // auto | contiguous | channels_last_3d

  bool operator==(const TrainingSpec&) const = default;
};

// How ranks cooperate (the launcher's process count lives on its command line,
// like torchrun's; this is what every rank must agree on).
struct DistributedSpec {
  std::string backend = "auto";     // auto (NCCL with CUDA, else Gloo) | gloo | nccl
  double bucket_cap_mb = 25.0;      // gradient all-reduce bucket size (DDP's default)
  bool overlap = true;              // launch a bucket's all-reduce during backward as soon as it is full
  bool drop_last = true;            // DistributedSampler: drop the tail (true) or pad by repeating (false)
  double timeout_s = 600.0;         // a collective that waits longer fails (a stopped or lost rank)
  double join_timeout_s = 300.0;    // every rank must join the process group within this
  int check_parameters_every = 0;   // debug: verify parameters are identical on all ranks every N steps (0: off)

  bool operator==(const DistributedSpec&) const = default;
};

// task ldm: the pipeline autoencoder -> encode -> diffusion -> generate
// (docs/latent-diffusion.md). Each stage is skipped when its output exists.
struct LdmSpec {
  // The network whose latents the UNet learns: autoencoder (model.autoencoder,
  // KL: MAISI) or vqgan (model.autoencoder + model.vqgan: medicaldiffusion's
  // DDPM on the VQ-GAN's pre-quantisation codes, quantised before decoding).
  std::string first_stage = "autoencoder";
  std::string autoencoder_checkpoint;  // "": train the first stage as stage 1; else use this checkpoint
  std::string diffusion_init;  // "": the UNet starts from scratch; else from this checkpoint's weights (fine-tuning)
  // task controlnet (NV-Generate's train_controlnet): the ControlNet of this
  // NV-Generate network config (its controlnet_def) learns to steer the
  // frozen UNet of diffusion_init from label maps.
  std::string controlnet_config;
  std::string controlnet_init;  // "": a copy of the UNet's encoder (zero convolutions at 0); else these weights
  // The diffusion and ControlNet stages' error between the UNet's prediction
  // and the scheduler's target. mse: MONAI's generative tutorials; l1:
  // NV-Generate's recipe for MAISI (import-maisi sets it).
  std::string diffusion_loss = "mse";     // mse | l1
  double controlnet_weighted_loss = 1.0;  // loss weight of latent voxels under controlnet_weighted_labels (1: plain)
  std::vector<int> controlnet_weighted_labels;
  // NV-Generate's region-contrastive ControlNet loss (use_region_contrasive_loss):
  // a second pass with the tumour-free label (data/tumour_free_label.hpp);
  // inside the changed voxels the two predictions are pushed apart (by at most
  // delta), outside them the tumour-free prediction is held to the target.
  // loss += weight x (the two terms). import-maisi takes all three from controlnet_train.
  bool controlnet_region_contrastive = false;
  double controlnet_region_contrastive_delta = 2.0;
  double controlnet_region_contrastive_weight = 0.01;
  int autoencoder_steps = 200;         // stage 1 optimizer steps (training.* settings otherwise)
  std::string embedding_dir;           // "": the run's embedding/; else read (or write) latents here
  double scale_factor = 0.0;           // latent scale; 0: 1/std of the encoded latents (MAISI)
  bool encode_sample = false;          // store a sample of q(z|x) instead of its mean
  int encode_tile = 0;                 // encode in overlapping tiles of this latent edge (bounds memory on whole CTs); 0: whole
  // medsynth: <id>_emb.safetensors + .json; maisi: also NV-Generate-CTMR's
  // <id>_emb.nii.gz ([X, Y, Z, C]) + <id>_emb.nii.gz.json (xyz networks only)
  std::string embedding_layout = "medsynth";

  bool operator==(const LdmSpec&) const = default;
};

// task ldm, stage 4 and `medsynth-engine generate`: one volume per rank, seed = base_seed + rank.
struct GenerateSpec {
  int num_images = 0;                         // 0: one per rank; more are handed out round robin
  std::int64_t base_seed = 0;                 // image_seed{base_seed + k}_rank{R}.nii.gz
  std::array<int, 3> output_size{64, 64, 64}; // voxels x, y, z of the generated image
  std::array<double, 3> spacing{1.5, 1.5, 1.5};  // mm
  std::string orientation = "RAS";            // RAS | LPS: the axis directions written to the NIfTI
  int decode_tile = 0;                        // latent tile edge for the tiled decode; 0: decode in one piece
  double decode_overlap = 0.4;                // overlap of neighbouring tiles (MONAI sliding window; NV-Generate 0.6666)
  std::string decode_blend = "linear";        // linear | gaussian (MONAI's mode, NV-Generate's)
  // Image from a label (--label): voxels where the label is 0 become the
  // modality's floor (CT: data.ct_window's low end, MR: 0), as NV-Generate's
  // crop_img_body_mask does before it checks and writes the image;
  // import-maisi sets it.
  bool body_crop = false;
  // Image from a label: written as int16 (HU rounded), as NV-Generate's
  // image-from-mask writes it; import-maisi sets it. Otherwise float32.
  bool label_image_int16 = false;
  // Image from a label with guidance: the unconditional pass is steered by the
  // tumour-free label (data/tumour_free_label.hpp), as NV-Generate guides;
  // false: by the same label. import-maisi sets it.
  bool guide_against_tumour_free_label = false;
  bool evaluate = false;                      // ldm: an evaluate stage after generate (docs/evaluation.md)
  // The UNet's conditioning inputs, each used when the UNet has that input
  // (model.diffusion_unet.num_class_embeds, include_*_region_index_input).
  int modality = 1;                           // class label (MAISI: 1 = CT)
  // Classifier-free guidance (NV-Generate's cfg_guidance_scale): each step
  // takes uncond + scale x (cond - uncond), uncond with class label 0; 0: off.
  double guidance_scale = 0.0;
  std::vector<int> top_region_index;          // 4 values: one-hot body region of the top slice (MAISI ddpm-ct)
  std::vector<int> bottom_region_index;       // 4 values: of the bottom slice

  bool operator==(const GenerateSpec&) const = default;
};

struct OutputSpec {
  std::string runs_dir = "runs";
  bool tensorboard = true;
  // Middle slices of a validation input and its output at every validation:
  // PNGs under output/val-images/ and, with tensorboard, TensorBoard images.
  bool tensorboard_images = true;
  int save_reconstructions = 2;     // validation reconstructions written as .nii.gz at the end
  int log_every_steps = 10;

  bool operator==(const OutputSpec&) const = default;
};

struct JobSpec {
  std::string name = "job";
  std::string task = "autoencoder"; // autoencoder (ldm, vqgan, survival: later issues)
  DataSpec data;
  ModelSpec model;
  LossSpec loss;
  TrainingSpec training;
  CheckpointSpec checkpoint;
  DistributedSpec distributed;
  OutputSpec output;
  SchedulerOptions scheduler;
  LdmSpec ldm;
  GenerateSpec generate;

  bool operator==(const JobSpec&) const = default;
};

// Task ldm: the first stage's latent channels, which the diffusion UNet
// takes in and gives out (ldm.first_stage names the first stage's task).
inline int ldm_latent_channels(const JobSpec& job) {
  return job.ldm.first_stage == "vqgan" ? job.model.vqgan.embedding_dim : job.model.autoencoder.latent_channels;
}

}  // namespace medsynth

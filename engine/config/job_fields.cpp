// The table of job_fields.hpp: one row per field, in job-file order. Ranges
// are what validate_job() enforces (the scheduler's and the diffusion UNet's
// are enforced by their options' validate(), config/diffusion_spec.cpp, and
// a test holds both to the same values); choices of data.source and
// data.modality are config/job_enums.hpp's, the task's config/task_catalog's.
#include "config/job_fields.hpp"

#include <cmath>
#include <unordered_map>

#include "config/job_enums.hpp"
#include "config/number_text.hpp"
#include "config/task_catalog.hpp"

namespace medsynth {

namespace {

const std::string k_training = "Training";
const std::string k_data = "Data";
const std::string k_parallel = "Parallel computing";
const std::string k_model = "Model";
const std::string k_diffusion = "Latent diffusion";
const std::string k_output = "Checkpoints & output";

// The group of a row that names none: by its top-level section.
const std::string& group_of_section(const std::string& path) {
  const std::string top = path.substr(0, path.find('.'));
  if (top == "data") return k_data;
  if (top == "model" || top == "loss" || top == "task") return k_model;
  if (top == "distributed") return k_parallel;
  if (top == "checkpoint" || top == "output") return k_output;
  if (top == "scheduler" || top == "ldm" || top == "generate") return k_diffusion;
  return k_training;
}

// One row per field, as a table: clang-format would give every member a line,
// and a row names only the members it sets (GCC warns about the others).
// clang-format off
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
std::vector<JobFieldRow> table() {
  return {
      // top level
      {.path = "name", .label = "Run name", .group = "Checkpoints & output",
       .help = "Names the run directory: runs/<name>-<YYYYmmdd-HHMMSS>. Letters, digits, '.', '_', '-'."},
      {.path = "task", .label = "Task",
       .help = "autoencoder: the MAISI KL autoencoder; ldm: the whole latent diffusion pipeline (autoencoder, encode, "
               "diffusion UNet, generate); vqgan: the patch-based 3D VQ-GAN; survival: a 3D ResNet risk model (Cox "
               "loss, C-index); controlnet: MAISI's ControlNet on a given UNet; translation: image-to-image diffusion "
               "(Fast-DDPM BraTS: one contrast from the others).", .choices = task_names()},  // config/task_catalog: the registry's names
      // data
      {.path = "data.source", .label = "Data source",
       .help = "simulated: CT-like phantoms (the seeds' default); folder: .nii/.nii.gz/.nrrd/.nhdr/.mha/.mhd files, "
               "DICOM series or case folders (BraTS); csv: a manifest with an 'image' column; datalist: a MONAI/MAISI "
               "datalist JSON."},
      {.path = "data.path", .label = "Data path",
       .help = "Folder of volumes or of case folders, CSV manifest, or datalist JSON (folder/csv/datalist sources). "
               "Must exist."},
      {.path = "data.channels", .label = "Input contrasts",
       .help = "Case folders and datalists: the contrasts read as input channels, in order, by file-name suffix "
               "(BraTS 2023 t1n, t1c, t2w, t2f; BraTS 2021 t1, t1ce, t2, flair: either naming reads both); empty: one "
               "image per case."},
      {.path = "data.target", .label = "Target contrast",
       .help = "Task translation: the contrast generated from the input contrasts (BraTS: t2f = FLAIR)."},
      {.path = "data.label", .label = "Segmentation",
       .help = "Case folders: the suffix of the label map (BraTS: seg); datalists: read from each entry's 'label'. "
               "Empty: none.", .advanced = true},
      {.path = "data.datalist_key", .label = "Datalist key",
       .help = "Datalist JSON: the list of entries read (MONAI: training, validation, testing).", .advanced = true},
      {.path = "data.root", .label = "Datalist root",
       .help = "Datalist JSON: the folder its relative paths start from (MAISI's dataroot); empty: the JSON's "
               "folder.", .advanced = true},
      {.path = "data.modality", .label = "Modality",
       .help = "Chooses the intensity normalisation: a HU window for CT, percentiles for MRI."},
      {.path = "data.num_train", .label = "Training phantoms",
       .help = "Simulated training volumes.", .range = at_least(1)},
      {.path = "data.num_val", .label = "Validation phantoms",
       .help = "Simulated held-out volumes.", .range = at_least(1)},
      {.path = "data.phantom_size", .label = "Phantom size", .unit = "voxels",
       .help = "x, y, z; at least the patch size on every axis.", .range = at_least(1), .advanced = true},
      {.path = "data.phantom_spacing", .label = "Phantom spacing", .unit = "mm",
       .help = "Voxel spacing of the phantoms.", .range = above(0), .advanced = true},
      {.path = "data.noise_hu", .label = "Phantom noise", .unit = "HU",
       .help = "Gaussian noise added to the phantoms.", .range = at_least(0), .advanced = true},
      {.path = "data.val_fraction", .label = "Validation fraction",
       .help = "Real data: the last fraction of the sorted file list is held out.", .range = between_open(0, 1)},
      {.path = "data.max_volumes", .label = "Volumes used",
       .help = "Real data: only the first N volumes of the sorted list, before the validation split, for a quick trial "
               "run (seed 002's max_patients); 0 = all.", .range = at_least(0), .advanced = true},
      {.path = "data.ct_window", .label = "CT window", .unit = "HU",
       .help = "HU range mapped to [0, 1] and clipped (MAISI: -1000 to 1000).", .advanced = true},
      {.path = "data.mri_percentiles", .label = "MRI percentiles",
       .help = "Intensity percentiles mapped to [0, 1] (NV-Generate's MR: 0 and 99.5).", .advanced = true},
      {.path = "data.mri_clip", .label = "Clip MRI to [0, 1]",
       .help = "Clamp MR values beyond the percentiles; off keeps them above 1, as NV-Generate prepares MR.",
       .advanced = true},
      {.path = "data.target_spacing", .label = "Resample to spacing", .unit = "mm",
       .help = "Resample every volume to this spacing; empty keeps the native spacing.",
       .range = above(0), .advanced = true},
      {.path = "data.orientation", .label = "Reorient to",
       .help = "Reorder and flip voxel axes to these directions (MONAI Orientationd; MAISI: RAS); empty keeps the "
               "file's order.", .choices = {"", "RAS", "LPS"}, .advanced = true},
      {.path = "data.size_multiple", .label = "Resize to a multiple of", .unit = "voxels",
       .help = "Resize each axis to the nearest multiple of this (at least one), trilinear, as NV-Generate prepares "
               "MAISI training data (128); 0 = keep the size.", .range = at_least(0), .advanced = true},
      {.path = "data.patch_size", .label = "Patch size", .unit = "voxels",
       .help = "Random training patch; each axis >= 4 and divisible by 2^(levels-1) (MAISI trains on 64^3).",
       .range = at_least(4)},
      {.path = "data.patch_stride", .label = "Patch stride", .unit = "voxels",
       .help = "VQ-GAN grid patches: step between patches per axis (seed: 128 = no overlap); 0: the patch size.",
       .advanced = true},
      {.path = "data.patch_min_foreground", .label = "Min. foreground per patch",
       .help = "VQ-GAN: keep only grid patches with at least this share of foreground voxels; 0: every patch.",
       .range = between(0, 1), .advanced = true},
      {.path = "data.foreground_threshold", .label = "Foreground threshold",
       .help = "Normalised intensity above which a voxel counts as foreground (0.1 = -800 HU).",
       .range = between(0, 1), .advanced = true},
      {.path = "data.covariates", .label = "Clinical covariates",
       .help = "Survival: comma-separated CSV columns added to the risk as a linear term (e.g. \"age, sex\"); empty: "
               "none.", .advanced = true},
      {.path = "data.smart_cache", .label = "SmartCache",
       .help = "Survival: MONAI SmartCacheDataset - hold cache_rate of the volumes, replace replace_rate of them each "
               "epoch in the background."},
      {.path = "data.replace_rate", .label = "Replace rate",
       .help = "Share of the SmartCache replaced each epoch (seed: 0.3 with cache_rate 0.7).",
       .range = between(0, 1), .advanced = true},
      {.path = "data.random_flip", .label = "Random flips",
       .help = "Flip patches along random axes during training."},
      {.path = "data.cache_rate", .label = "Cache rate",
       .help = "Fraction of preprocessed volumes kept in memory (MONAI CacheDataset).",
       .range = between(0, 1), .advanced = true},
      {.path = "data.num_workers", .label = "Loader threads",
       .help = "Threads preparing batches (MONAI DataLoader num_workers).", .range = at_least(0), .advanced = true},
      {.path = "data.prefetch", .label = "Prefetch batches",
       .help = "Batches prepared ahead of the trainer.", .range = at_least(0), .advanced = true},
      // model
      {.path = "model.tensor_axes", .label = "Network axis order",
       .help = "zyx: medsynth's volumes; xyz: MONAI's arrays, as NVIDIA's MAISI weights expect (set by import-maisi; "
               "trains with a given autoencoder).", .choices = {"zyx", "xyz"}, .advanced = true},
      // model.autoencoder
      {.path = "model.autoencoder.spatial_dims", .label = "Spatial dimensions",
       .help = "Must be 3.", .advanced = true},
      {.path = "model.autoencoder.in_channels", .label = "Input channels",
       .help = "Image channels in.", .range = at_least(1), .advanced = true},
      {.path = "model.autoencoder.out_channels", .label = "Output channels",
       .help = "Image channels out.", .range = at_least(1), .advanced = true},
      {.path = "model.autoencoder.latent_channels", .label = "Latent channels",
       .help = "Channels of the latent (MAISI: 4).", .range = at_least(1)},
      {.path = "model.autoencoder.num_channels", .label = "Channels per level",
       .help = "One entry per level; len-1 downsamplings; each divisible by the norm groups (MAISI: 64, 128, 256).",
       .range = at_least(1)},
      {.path = "model.autoencoder.num_res_blocks", .label = "Residual blocks per level",
       .help = "Same length as the channels per level.", .range = at_least(1)},
      {.path = "model.autoencoder.norm_num_groups", .label = "GroupNorm groups",
       .help = "Groups of every GroupNorm (MAISI: 32).", .range = at_least(1), .advanced = true},
      {.path = "model.autoencoder.norm_eps", .label = "GroupNorm epsilon",
       .help = "Added to the variance in GroupNorm.", .range = above(0), .advanced = true},
      {.path = "model.autoencoder.attention_levels", .label = "Attention per level",
       .help = "Self-attention at each level; same length as the channels per level.", .advanced = true},
      {.path = "model.autoencoder.with_encoder_nonlocal_attn", .label = "Encoder attention block",
       .help = "An attention block in the encoder's middle.", .advanced = true},
      {.path = "model.autoencoder.with_decoder_nonlocal_attn", .label = "Decoder attention block",
       .help = "An attention block in the decoder's middle.", .advanced = true},
      {.path = "model.autoencoder.use_checkpointing", .label = "Activation checkpointing",
       .help = "Trades compute for memory on GPUs; ignored on CPU.", .advanced = true},
      {.path = "model.autoencoder.use_convtranspose", .label = "Transposed convolutions",
       .help = "Upsample with transposed convolutions instead of interpolation + conv.", .advanced = true},
      {.path = "model.autoencoder.maisi", .label = "MAISI layout",
       .help = "MONAI's AutoencoderKlMaisi: the network of NVIDIA's released weights (split convolutions, float32 "
               "norms, trilinear upsampling).", .advanced = true},
      {.path = "model.autoencoder.num_splits", .label = "Convolution pieces",
       .help = "MAISI: run each convolution in this many pieces along the split axis to bound memory; 1 = whole.",
       .range = at_least(1), .advanced = true},
      {.path = "model.autoencoder.dim_split", .label = "Split axis",
       .help = "MAISI: the axis the convolutions are cut along (0, 1, 2 = D, H, W).",
       .range = between(0, 2), .advanced = true},
      {.path = "model.autoencoder.norm_float16", .label = "Float16 norms",
       .help = "MAISI: round every norm's output to float16 (halves its memory on a GPU).", .advanced = true},
      {.path = "model.autoencoder.include_fc", .label = "Attention output projection",
       .help = "Attention blocks end with a linear projection (MONAI include_fc).", .advanced = true},
      {.path = "model.autoencoder.use_combined_linear", .label = "Combined qkv projection",
       .help = "Attention blocks use one qkv projection (MONAI use_combined_linear).", .advanced = true},
      // model.discriminator
      {.path = "model.discriminator.num_layers_d", .label = "Discriminator layers",
       .help = "Strided conv layers of the PatchGAN (MAISI: 3); used when the adversarial weight > 0.",
       .range = between(1, 8), .advanced = true},  // what models/patch_discriminator builds
      {.path = "model.discriminator.channels", .label = "Discriminator channels",
       .help = "Channels of its first layer (MAISI: 32).", .range = at_least(1), .advanced = true},
      {.path = "model.discriminator.start_step", .label = "Adversarial loss from step",
       .help = "Optimizer step at which the generator's adversarial loss starts.",
       .range = at_least(0), .advanced = true},
      // model.diffusion_unet
      {.path = "model.diffusion_unet.channels", .label = "UNet channels per level",
       .help = "Diffusion UNet width per level; each a multiple of its GroupNorm groups (MAISI: 64, 128, 256, 512).",
       .range = at_least(1)},
      {.path = "model.diffusion_unet.num_res_blocks", .label = "UNet blocks per level",
       .help = "Residual blocks per level, one entry per level (MAISI: 2).", .range = at_least(1)},
      {.path = "model.diffusion_unet.attention_levels", .label = "UNet attention levels",
       .help = "Self-attention after each block at these levels (MAISI: the two coarsest)."},
      {.path = "model.diffusion_unet.num_head_channels", .label = "Channels per attention head",
       .help = "Per level; 0 = one head (MAISI: 0, 0, 32, 32).", .advanced = true},
      {.path = "model.diffusion_unet.norm_num_groups", .label = "UNet GroupNorm groups",
       .help = "Groups of every GroupNorm in the UNet (MAISI: 32).", .range = at_least(1), .advanced = true},
      {.path = "model.diffusion_unet.norm_eps", .label = "UNet GroupNorm epsilon",
       .help = "Epsilon of every GroupNorm in the UNet.", .range = above(0), .advanced = true},
      {.path = "model.diffusion_unet.include_spacing_input", .label = "Condition on spacing",
       .help = "Feed the voxel spacing to the UNet, as MAISI's rflow model does.", .advanced = true},
      {.path = "model.diffusion_unet.num_class_embeds", .label = "Modality classes",
       .help = "Size of the UNet's class embedding (MAISI: 128 modality classes); 0 = none.",
       .range = at_least(0), .advanced = true},
      {.path = "model.diffusion_unet.include_top_region_index_input", .label = "Condition on top region",
       .help = "The body region of the top slice, as MAISI's ddpm-ct model takes it.", .advanced = true},
      {.path = "model.diffusion_unet.include_bottom_region_index_input", .label = "Condition on bottom region",
       .help = "The body region of the bottom slice, as MAISI's ddpm-ct model takes it.", .advanced = true},
      {.path = "model.diffusion_unet.resblock_updown", .label = "Residual resampling",
       .help = "Down- and upsample with residual blocks (MAISI: true).", .advanced = true},
      {.path = "model.diffusion_unet.include_fc", .label = "UNet attention projection",
       .help = "Attention blocks end with a linear projection (MONAI include_fc).", .advanced = true},
      {.path = "model.diffusion_unet.use_combined_linear", .label = "UNet combined qkv",
       .help = "Attention blocks use one qkv projection (MONAI use_combined_linear).", .advanced = true},
      {.path = "model.diffusion_unet.use_flash_attention", .label = "Flash attention",
       .help = "Accepted for MONAI configs; the math is the same either way.", .advanced = true},
      // model.vqgan
      {.path = "model.vqgan.num_embeddings", .label = "Codebook size",
       .help = "Number of codes (n_codes; seed: 16384).", .range = at_least(2)},
      {.path = "model.vqgan.embedding_dim", .label = "Code dimension",
       .help = "Channels of each code (seed: 8).", .range = at_least(1)},
      {.path = "model.vqgan.commitment_cost", .label = "Commitment cost",
       .help = "Weight of ||z - sg[e]||^2 (beta, 0.25).", .range = at_least(0), .advanced = true},
      {.path = "model.vqgan.codebook_update", .label = "Codebook update",
       .help = "ema: moving averages of the assigned vectors; straight_through: codebook loss by gradient.",
       .choices = {"ema", "straight_through"}, .advanced = true},
      {.path = "model.vqgan.ema_decay", .label = "Codebook EMA decay",
       .help = "Decay of the codebook's moving averages (0.99).", .range = between_open(0, 1), .advanced = true},
      {.path = "model.vqgan.dead_code_threshold", .label = "Dead-code threshold",
       .help = "Codes whose usage share falls below this are restarted on encoder outputs; 0: never.",
       .range = from_below(0, 1), .advanced = true},
      {.path = "model.vqgan.discriminator_iter_start", .label = "Discriminator from step",
       .help = "discriminator_iter_start: both discriminators join at this optimizer step (seed: 10000).",
       .range = at_least(0)},
      {.path = "model.vqgan.image_gan_weight", .label = "Image (slice) GAN weight",
       .help = "image_gan_weight: the 2D discriminator on one random axial slice per patch (seed: 1.0); 0 disables it.",
       .range = at_least(0)},
      {.path = "model.vqgan.video_gan_weight", .label = "Video (3D) GAN weight",
       .help = "video_gan_weight: the 3D patch discriminator on whole patches (seed: 0.5); 0 disables it.",
       .range = at_least(0)},
      {.path = "model.vqgan.gan_feat_weight", .label = "Feature-matching weight",
       .help = "gan_feat_weight: L1 between the discriminators' features of reconstruction and input (seed's disc config: 4.0).",
       .range = at_least(0), .advanced = true},
      // model.resnet
      {.path = "model.resnet.depth", .label = "ResNet depth",
       .help = "10, 18, 34 (BasicBlock) or 50 (Bottleneck; the seed's resnet50)."},
      {.path = "model.resnet.block_inplanes", .label = "ResNet widths",
       .help = "Channels of layer1..layer4 (MONAI: 64, 128, 256, 512; x4 for depth 50).",
       .range = between(1, 2048), .advanced = true},
      {.path = "model.resnet.conv1_t_size", .label = "First conv kernel",
       .help = "Kernel of conv1 (MONAI: 7); odd.", .advanced = true},
      {.path = "model.resnet.conv1_t_stride", .label = "First conv stride",
       .help = "Stride of conv1 (MONAI: 1).", .range = at_least(1), .advanced = true},
      {.path = "model.resnet.no_max_pool", .label = "No max-pool",
       .help = "Skip the max-pool after conv1 (MONAI's no_max_pool).", .advanced = true},
      {.path = "model.resnet.norm", .label = "ResNet norm",
       .help = "batch (MONAI; statistics averaged over processes before validation) or group.",
       .choices = {"batch", "group"}, .advanced = true},
      // loss
      {.path = "loss.recon_loss", .label = "Reconstruction loss",
       .help = "l1 (MAISI), l2, or l1_window (the window's ends are bounds: at or below the air floor costs nothing).",
       .choices = {"l1", "l2", "l1_window"}},
      {.path = "loss.kl_weight", .label = "KL weight",
       .help = "Weight of the KL term (MAISI: 1e-7).", .range = at_least(0)},
      {.path = "loss.logvar_clamp", .label = "Log-variance clamp",
       .help = "The encoder's log-variance is clamped to this range so the KL term stays finite.", .advanced = true},
      {.path = "loss.adv_weight", .label = "Adversarial weight",
       .help = "0 disables the discriminator (MAISI uses 0.1 on GPUs).", .range = at_least(0)},
      {.path = "loss.perceptual_weight", .label = "Perceptual weight",
       .help = "Task vqgan (seed: 0.1): MONAI's perceptual loss through loss.perceptual_network; 0 disables it.",
       .range = at_least(0), .advanced = true},
      {.path = "loss.perceptual_network", .label = "Perceptual network",
       .help = "Weights file: MedicalNet's resnet_10_23dataset.pth (3D) or RadImageNet-ResNet50_notop.pth (2.5D).",
       .advanced = true},
      {.path = "loss.perceptual_fake_3d_ratio", .label = "Perceptual slice share",
       .help = "RadImageNet (2.5D) only: share of each axis' slices compared, drawn at random (MONAI: 0.5); 1 = all.",
       .range = above_to(0, 1), .advanced = true},
      // training
      {.path = "training.epochs", .label = "Epochs",
       .help = "Passes over the training set (MAISI: 2 simulated, 50+ real); ignored when max steps > 0."},
      {.path = "training.max_steps", .label = "Max steps",
       .help = "Stop after this many optimizer steps; 0: the epochs decide.", .range = at_least(0)},
      {.path = "training.batch_size", .label = "Batch size per process",
       .help = "Volumes per process and micro-batch (MAISI: 1). Effective batch = batch x accumulation x processes.",
       .range = at_least(1)},
      {.path = "training.gradient_accumulation_steps", .label = "Gradient accumulation",
       .help = "Micro-batches per optimizer step.", .range = at_least(1)},
      {.path = "training.lr", .label = "Learning rate",
       .help = "Learning rate (MAISI autoencoder: 1e-4; an imported run: NV-Generate's diffusion_unet_train lr).",
       .range = above(0)},
      {.path = "training.optimizer", .label = "Optimizer",
       .help = "adamw (decoupled weight decay, MAISI's autoencoder) or adam (weight decay in the gradient, "
               "NV-Generate's diffusion training).",
       .choices = {"adamw", "adam"}, .advanced = true},
      {.path = "training.weight_decay", .label = "Weight decay",
       .help = "Decoupled (adamw) or added to the gradient (adam).", .range = at_least(0), .advanced = true},
      {.path = "training.betas", .label = "Adam betas",
       .help = "Two values in [0, 1).", .range = from_below(0, 1), .advanced = true},
      {.path = "training.fused_optimizer", .label = "Fused optimizer",
       .help = "ATen's fused Adam(W) kernel, one pass per parameter (faster); off: torch's per-tensor loop. The same "
               "update up to rounding.", .advanced = true},
      {.path = "training.warmup_steps", .label = "Warm-up steps",
       .help = "Linear learning-rate warm-up.", .range = at_least(0)},
      {.path = "training.lr_schedule", .label = "LR schedule",
       .help = "After warm-up: cosine decay, constant, or polynomial decay to 0 (torch's PolynomialLR, NV-Generate's).",
       .choices = {"cosine", "constant", "polynomial"}},
      {.path = "training.min_lr_ratio", .label = "Final LR ratio",
       .help = "End of the cosine schedule as a fraction of the learning rate.",
       .range = between(0, 1), .advanced = true},
      {.path = "training.lr_power", .label = "Polynomial power",
       .help = "Polynomial schedule: lr x (1 - step / steps)^power (NV-Generate: 2).", .range = above(0),
       .advanced = true},
      {.path = "training.amp", .label = "Mixed precision (AMP)",
       .help = "bf16 autocast on CPU, fp16 with loss scaling on CUDA (MAISI trains with AMP)."},
      {.path = "training.grad_clip_norm", .label = "Gradient clip norm",
       .help = "0 disables clipping.", .range = at_least(0), .advanced = true},
      {.path = "training.base_seed", .label = "Base seed",
       .help = "Process r seeds with base seed + r (as the seeds do per GPU).", .range = at_least(0)},
      {.path = "training.deterministic", .label = "Deterministic",
       .help = "Deterministic algorithms where LibTorch offers them.", .advanced = true},
      {.path = "training.val_every_steps", .label = "Validate every (steps)",
       .help = "Validation interval in optimizer steps.", .range = at_least(1)},
      {.path = "training.val_max_volumes", .label = "Validation volumes",
       .help = "At most this many held-out volumes; 0 = all.", .range = at_least(0), .advanced = true},
      {.path = "training.val_sliding_window", .label = "Sliding-window validation",
       .help = "Reconstruct validation volumes patch by patch with Gaussian blending (as MAISI validates).",
       .advanced = true},
      {.path = "training.val_overlap", .label = "Window overlap",
       .help = "Overlap of neighbouring validation windows.", .range = from_below(0, 1), .advanced = true},
      {.path = "training.ema_decay", .label = "EMA decay",
       .help = "Moving average of the weights used for validation and checkpoints; 0 = off.",
       .range = from_below(0, 1), .advanced = true},
      {.path = "training.nan_max_bad_steps", .label = "Non-finite steps before rollback",
       .help = "Consecutive non-finite steps before rolling back to the last good checkpoint.",
       .range = at_least(1), .advanced = true},
      {.path = "training.nan_lr_factor", .label = "LR factor on rollback",
       .help = "Learning-rate multiplier applied at each rollback.", .range = between_open(0, 1), .advanced = true},
      {.path = "training.num_threads", .label = "Threads per process", .group = "Parallel computing",
       .help = "Intra-op threads; 0 = all cores.", .range = at_least(0), .advanced = true},
      {.path = "training.per_sample_noise", .label = "Per-sample noise", .group = "Parallel computing",
       .help = "Draw each sample's VAE noise from (seed, epoch, sample) instead of the rank's generator: the same "
               "weights whatever ranks x batch x accumulation.", .advanced = true},
      {.path = "training.device", .label = "Device", .group = "Parallel computing",
       .help = "auto takes CUDA when present.", .choices = {"auto", "cpu", "cuda"}},
      {.path = "training.memory_format", .label = "Memory format", .group = "Parallel computing",
       .help = "Tensor layout for convolutions; auto picks the faster measured one.",
       .choices = {"auto", "contiguous", "channels_last_3d"}, .advanced = true},
      // checkpoint
      {.path = "checkpoint.every_steps", .label = "Checkpoint every (steps)",
       .help = "Write last.pt every this many steps; 0 = at every validation.", .range = at_least(0)},
      {.path = "checkpoint.keep_best", .label = "Best checkpoints kept",
       .help = "Top-k checkpoints by the metric below.", .range = at_least(1)},
      {.path = "checkpoint.metric", .label = "Ranking metric",
       .help = "Validation metric that ranks checkpoints (val/psnr, val/ssim, val/l1).", .advanced = true},
      {.path = "checkpoint.mode", .label = "Better is",
       .help = "Whether a larger (max) or smaller (min) metric is better.",
       .choices = {"max", "min"}, .advanced = true},
      {.path = "checkpoint.resume", .label = "Resume from",
       .help = "Empty: fresh start; auto: the run's last checkpoint; or a checkpoint file."},
      {.path = "checkpoint.name_prefix", .label = "Checkpoint name prefix",
       .help = "Empty: best-<metric>-<value>-step<N>; else <prefix>-epochXX-psnrYY.YY (seed: vqgan-patches).",
       .advanced = true},
      // distributed
      {.path = "distributed.backend", .label = "Backend",
       .help = "c10d backend: NCCL with CUDA, else Gloo.", .choices = {"auto", "gloo", "nccl"}},
      {.path = "distributed.bucket_cap_mb", .label = "Gradient bucket", .unit = "MB",
       .help = "Gradients are all-reduced in buckets of about this size (DDP: 25).",
       .range = above_to(0, 4096), .advanced = true},
      {.path = "distributed.overlap", .label = "Overlap communication",
       .help = "All-reduce a bucket during backward as soon as its gradients are ready.", .advanced = true},
      {.path = "distributed.drop_last", .label = "Drop last samples",
       .help = "Drop the samples that do not fill every process (DistributedSampler).", .advanced = true},
      {.path = "distributed.timeout_s", .label = "Collective timeout", .unit = "s",
       .help = "A collective waiting longer fails the run instead of hanging it.", .range = above(0)},
      {.path = "distributed.join_timeout_s", .label = "Join timeout", .unit = "s",
       .help = "Every process must join the group within this.", .range = above(0)},
      {.path = "distributed.check_parameters_every", .label = "Check parameters every (steps)",
       .help = "Debug: verify identical parameters on all processes; 0 = off.", .range = at_least(0), .advanced = true},
      // output
      {.path = "output.runs_dir", .label = "Runs folder",
       .help = "Parent of the run directories."},
      {.path = "output.tensorboard", .label = "TensorBoard files",
       .help = "Also write every metric to tb/ for TensorBoard."},
      {.path = "output.tensorboard_images", .label = "Validation images",
       .help = "At every validation, the middle axial, coronal and sagittal slices of one held-out input beside "
               "its output: PNGs in output/val-images/, TensorBoard images val/images/* (with TensorBoard files) "
               "and the console's run view. Off: the seed's --no-images."},
      {.path = "output.save_reconstructions", .label = "Reconstructions saved",
       .help = "Validation reconstructions written as .nii.gz at the end (CT in HU, through data.ct_window).",
       .range = at_least(0)},
      {.path = "output.log_every_steps", .label = "Log every (steps)",
       .help = "Progress and metric events every this many steps.", .range = at_least(1), .advanced = true},
      // scheduler
      {.path = "scheduler.kind", .label = "Scheduler", .group = "Latent diffusion",
       .help = "rflow: rectified flow, 30 steps (maisi3d-rflow); ddpm: 1000 steps (maisi3d-ddpm); ddim: N "
               "deterministic steps; fast_ddpm: 10 steps for training and sampling.",
       .choices = enum_names<SchedulerKind>()},
      {.path = "scheduler.num_train_timesteps", .label = "Training timesteps", .group = "Latent diffusion",
       .help = "T of the noise schedule (MONAI/MAISI: 1000).", .range = at_least(2), .advanced = true},
      {.path = "scheduler.beta_schedule", .label = "Beta schedule", .group = "Latent diffusion",
       .help = "linear_beta or scaled_linear_beta (MAISI ddpm).",
       .choices = enum_names<BetaSchedule>(), .advanced = true},
      {.path = "scheduler.beta_start", .label = "Beta start", .group = "Latent diffusion",
       .help = "First beta of the schedule (MAISI: 0.0015).", .range = between_open(0, 1), .advanced = true},
      {.path = "scheduler.beta_end", .label = "Beta end", .group = "Latent diffusion",
       .help = "Last beta of the schedule (MAISI: 0.0195).", .range = between_open(0, 1), .advanced = true},
      {.path = "scheduler.prediction_type", .label = "Prediction type", .group = "Latent diffusion",
       .help = "What a DDPM/DDIM/Fast-DDPM network predicts: epsilon, sample (x0) or v_prediction; rectified flow "
               "always predicts the velocity.", .choices = enum_names<PredictionType>(), .advanced = true},
      {.path = "scheduler.num_inference_steps", .label = "Sampling steps", .group = "Latent diffusion",
       .help = "Reverse steps when generating (rflow 30, ddpm 1000, ddim 50).", .range = at_least(1)},
      {.path = "scheduler.ddim_eta", .label = "DDIM eta", .group = "Latent diffusion",
       .help = "0: deterministic DDIM/Fast-DDPM sampling; 1: as noisy as DDPM.",
       .range = between(0, 1), .advanced = true},
      {.path = "scheduler.clip_sample", .label = "Clip predicted x0", .group = "Latent diffusion",
       .help = "DDPM/DDIM/Fast-DDPM sampling: clamp each step's predicted clean image to +/- the clip value (MONAI "
               "and diffusers' clip_sample); keeps image-space sampling in range (task translation: on).",
       .advanced = true},
      {.path = "scheduler.clip_sample_value", .label = "Clip value", .group = "Latent diffusion",
       .help = "The bound of clip_sample (images in [-1, 1]: 1).", .range = above(0), .advanced = true},
      {.path = "scheduler.sample_method", .label = "Timestep sampling", .group = "Latent diffusion",
       .help = "Rectified flow training timesteps: uniform or logit-normal (MAISI).",
       .choices = enum_names<TimestepSampling>(), .advanced = true},
      {.path = "scheduler.use_timestep_transform", .label = "Resolution shift", .group = "Latent diffusion",
       .help = "Rectified flow: shift timesteps toward noise for latents larger than the base size (MAISI).",
       .advanced = true},
      {.path = "scheduler.base_img_size_numel", .label = "Base latent voxels", .group = "Latent diffusion",
       .help = "Latent voxel count at which the shift is neutral (MAISI: 32^3).",
       .range = at_least(1), .advanced = true},
      {.path = "scheduler.monai_timestep_arithmetic", .label = "MONAI timestep arithmetic", .group = "Latent diffusion",
       .help = "Rectified flow sampling as MONAI's RFlowScheduler computes it (float16 timesteps, the next one "
               "truncated), as NV-Generate samples; off: exact steps. import-maisi turns it on.",
       .advanced = true},
      {.path = "scheduler.fast_ddpm_schedule", .label = "Fast-DDPM timesteps", .group = "Latent diffusion",
       .help = "uniform: every T/10; non-uniform: 40 % below 0.7 T, 60 % above (Fast-DDPM).",
       .choices = enum_names<FastDdpmSchedule>(), .advanced = true},
      {.path = "scheduler.fast_ddpm_steps", .label = "Fast-DDPM steps", .group = "Latent diffusion",
       .help = "Timesteps used for training and sampling (Fast-DDPM: 10).", .range = at_least(2), .advanced = true},
      // ldm
      {.path = "ldm.first_stage", .label = "First stage", .group = "Latent diffusion",
       .help = "The network whose latents the UNet learns: autoencoder (KL, MAISI) or vqgan (model.vqgan: diffusion "
               "on a VQ-GAN's codes, as medicaldiffusion trains its DDPM).",
       .choices = {"autoencoder", "vqgan"}},
      {.path = "ldm.autoencoder_checkpoint", .label = "Autoencoder checkpoint", .group = "Latent diffusion",
       .help = "Use this trained first stage (an autoencoder's or, with first_stage vqgan, a VQ-GAN run's checkpoint); "
               "empty: train one as the pipeline's first stage."},
      {.path = "ldm.diffusion_init", .label = "Start UNet from", .group = "Latent diffusion",
       .help = "Fine-tune: the diffusion UNet starts from this checkpoint's weights (e.g. an import-maisi run's "
               "diffusion/checkpoints/last.safetensors); empty: from scratch."},
      {.path = "ldm.controlnet_config", .label = "ControlNet network config", .group = "Latent diffusion",
       .help = "Task controlnet: the NV-Generate network config whose controlnet_def is trained (train RUN sets the "
               "imported run's).", .advanced = true},
      {.path = "ldm.controlnet_init", .label = "Start ControlNet from", .group = "Latent diffusion",
       .help = "Task controlnet: these ControlNet weights (e.g. NVIDIA's released ones); empty: a copy of the UNet's "
               "encoder, its zero convolutions at 0."},
      {.path = "ldm.diffusion_loss", .label = "Diffusion loss", .group = "Latent diffusion",
       .help = "The UNet's (and the ControlNet's) error on the scheduler's target: mse (MONAI's tutorials) or l1 "
               "(NV-Generate's MAISI recipe; import-maisi sets it).",
       .choices = {"mse", "l1"}},
      {.path = "ldm.controlnet_weighted_loss", .label = "Weight of labelled voxels", .group = "Latent diffusion",
       .help = "Task controlnet: loss weight of latent voxels under the weighted labels (NV-Generate's weighted_loss); "
               "1 = plain.", .range = at_least(1), .advanced = true},
      {.path = "ldm.controlnet_weighted_labels", .label = "Weighted labels", .group = "Latent diffusion",
       .help = "Task controlnet: label values whose voxels get the weight (NV-Generate's weighted_loss_label).",
       .advanced = true},
      {.path = "ldm.controlnet_region_contrastive", .label = "Region-contrastive loss", .group = "Latent diffusion",
       .help = "Task controlnet: NV-Generate's region-contrastive loss: a second pass with the tumour-free label; the "
               "two predictions differ inside the tumour, agree with the target outside it (import-maisi takes "
               "use_region_contrasive_loss).", .advanced = true},
      {.path = "ldm.controlnet_region_contrastive_delta", .label = "Region-contrastive bound", .group = "Latent diffusion",
       .help = "Task controlnet: the most the tumour term counts (NV-Generate's region_contrasive_loss_delta).",
       .range = above(0), .advanced = true},
      {.path = "ldm.controlnet_region_contrastive_weight", .label = "Region-contrastive weight", .group = "Latent diffusion",
       .help = "Task controlnet: weight of the region-contrastive terms in the loss "
               "(NV-Generate's region_contrasive_loss_weight).", .range = at_least(0), .advanced = true},
      {.path = "ldm.autoencoder_steps", .label = "Autoencoder steps", .group = "Latent diffusion",
       .help = "Optimizer steps of the autoencoder stage (the diffusion stage uses training.max_steps).",
       .range = at_least(1)},
      {.path = "ldm.embedding_dir", .label = "Embedding folder", .group = "Latent diffusion",
       .help = "Latents are read from (or written to) here; empty: the run's embedding/.", .advanced = true},
      {.path = "ldm.scale_factor", .label = "Latent scale factor", .group = "Latent diffusion",
       .help = "Multiplies latents before diffusion; 0: 1 / std of the encoded latents (MAISI).",
       .range = at_least(0), .advanced = true},
      {.path = "ldm.encode_sample", .label = "Encode a sample", .group = "Latent diffusion",
       .help = "Store a sample of q(z|x) instead of its mean.", .advanced = true},
      {.path = "ldm.encode_tile", .label = "Encode in tiles", .group = "Latent diffusion",
       .help = "Encode each volume in overlapping latent tiles of this edge (bounds memory on whole CTs: 512x512x256 "
               "needs ~4 GB at 32); 0 = whole.", .range = at_least(0), .advanced = true},
      {.path = "ldm.embedding_layout", .label = "Embedding layout", .group = "Latent diffusion",
       .help = "medsynth: latents as .safetensors; maisi: also NV-Generate-CTMR's <id>_emb.nii.gz and its .json, "
               "which NVIDIA's diff_model_train.py reads (xyz / MAISI networks only).",
       .choices = {"medsynth", "maisi"}, .advanced = true},
      // generate
      {.path = "generate.num_images", .label = "Images to generate", .group = "Latent diffusion",
       .help = "0: one per process; more are handed out round robin.", .range = at_least(0)},
      {.path = "generate.base_seed", .label = "Generation base seed", .group = "Latent diffusion",
       .help = "Image k uses seed base_seed + k: image_seed{S}_rank{R}.nii.gz. 0 is a valid seed.",
       .range = at_least(0)},
      {.path = "generate.output_size", .label = "Output size", .unit = "voxels", .group = "Latent diffusion",
       .help = "x, y, z of each generated image; multiples of the autoencoder x UNet downsampling (MAISI's largest: 512 x 512 x 768).",
       .range = between(1, 2048)},
      {.path = "generate.spacing", .label = "Output spacing", .unit = "mm", .group = "Latent diffusion",
       .help = "Voxel spacing written to the generated NIfTI files.", .range = above(0)},
      {.path = "generate.orientation", .label = "Output orientation", .group = "Latent diffusion",
       .help = "Axis directions of the generated files: RAS (MAISI) or LPS.",
       .choices = {"RAS", "LPS"}, .advanced = true},
      {.path = "generate.decode_tile", .label = "Decode tile", .unit = "latent voxels", .group = "Latent diffusion",
       .help = "Decode in overlapping tiles of this edge to bound memory; 0: in one piece.",
       .range = at_least(0), .advanced = true},
      {.path = "generate.decode_overlap", .label = "Tile overlap", .group = "Latent diffusion",
       .help = "Overlap of neighbouring decode tiles (NV-Generate: 0.6666).",
       .range = from_below(0, 1), .advanced = true},
      {.path = "generate.decode_blend", .label = "Tile blending", .group = "Latent diffusion",
       .help = "How overlapping tiles are weighted: linear ramp, or MONAI's Gaussian (NV-Generate).",
       .choices = {"linear", "gaussian"}, .advanced = true},
      {.path = "generate.body_crop", .label = "Crop to the label's body", .group = "Latent diffusion",
       .help = "Image from a label: voxels where the label is 0 become air (CT: the window's low end; MR: 0), as "
               "NV-Generate crops its images (import-maisi turns it on).",
       .advanced = true},
      {.path = "generate.label_image_int16", .label = "Image from a label as int16", .group = "Latent diffusion",
       .help = "Image from a label: written as int16 (values rounded), as NV-Generate writes it (import-maisi turns "
               "it on); otherwise float32.", .advanced = true},
      {.path = "generate.guide_against_tumour_free_label", .label = "Guide against the tumour-free label",
       .group = "Latent diffusion",
       .help = "Image from a label with guidance: the unconditional pass is steered by the label with its tumours "
               "given to the organ around them, as NV-Generate guides (import-maisi turns it on); off: the same label.",
       .advanced = true},
      {.path = "generate.evaluate", .label = "Evaluate the generated images", .group = "Latent diffusion",
       .help = "After generating: MS-SSIM, MMD and HU checks against the training data, and a memorization audit "
               "(RUN/evaluation)."},
      {.path = "generate.modality", .label = "Modality class", .group = "Latent diffusion",
       .help = "Class label for a UNet with a class embedding (MAISI: 1 = CT).", .advanced = true},
      {.path = "generate.guidance_scale", .label = "Guidance scale", .group = "Latent diffusion",
       .help = "Classifier-free guidance toward the modality: uncond + scale x (cond - uncond) at every step "
               "(NV-Generate: 15 for rflow-mr, 2 for rflow-mr-brain); 0 = off.", .range = at_least(0), .advanced = true},
      {.path = "generate.top_region_index", .label = "Top body region", .group = "Latent diffusion",
       .help = "4 values, one-hot: head, chest, abdomen, lower body of the top slice (MAISI ddpm-ct).",
       .advanced = true},
      {.path = "generate.bottom_region_index", .label = "Bottom body region", .group = "Latent diffusion",
       .help = "4 values, one-hot, of the bottom slice (MAISI ddpm-ct).", .advanced = true},
  };
}
#pragma GCC diagnostic pop
// clang-format on

}  // namespace

bool JobFieldRange::contains(double value) const {
  if (std::isnan(value)) return false;
  if (min && (min_exclusive ? !(value > *min) : !(value >= *min))) return false;
  if (max && (max_exclusive ? !(value < *max) : !(value <= *max))) return false;
  // An open upper end still refuses infinity: no job field means "unbounded" by it.
  return std::isfinite(value);
}

std::string JobFieldRange::requirement(const std::string& unit) const {
  const std::string suffix = unit.empty() ? "" : " " + unit;
  if (min && max)
    return "must be in " + std::string(min_exclusive ? "(" : "[") + short_number(*min) + ", " + short_number(*max) +
           (max_exclusive ? ")" : "]") + suffix;
  if (min) return std::string("must be ") + (min_exclusive ? "> " : ">= ") + short_number(*min) + suffix;
  if (max) return std::string("must be ") + (max_exclusive ? "< " : "<= ") + short_number(*max) + suffix;
  return "";
}

const std::vector<std::string>& job_field_groups() {
  static const std::vector<std::string> groups{k_training, k_data, k_parallel, k_model, k_diffusion, k_output};
  return groups;
}

const std::vector<JobFieldRow>& job_field_rows() {
  static const std::vector<JobFieldRow> rows = [] {
    auto out = table();
    for (auto& row : out)
      if (row.group.empty()) row.group = group_of_section(row.path);
    return out;
  }();
  return rows;
}

const JobFieldRow* find_job_field_row(std::string_view path) {
  static const std::unordered_map<std::string_view, const JobFieldRow*> by_path = [] {
    std::unordered_map<std::string_view, const JobFieldRow*> map;
    for (const auto& row : job_field_rows()) map.emplace(row.path, &row);
    return map;
  }();
  const auto it = by_path.find(path);
  return it == by_path.end() ? nullptr : it->second;
}

}  // namespace medsynth

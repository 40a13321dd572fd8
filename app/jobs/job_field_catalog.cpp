// The job editor's field list: paths, kinds and defaults walked from the
// schema (visit_job over a default JobSpec); labels, help, ranges, groups and
// the choices of string enums are the console's, in the table below.
#include "app/jobs/job_field_catalog.hpp"

#include <QHash>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "config/job_enums.hpp"
#include "config/job_schema.hpp"
#include "config/job_spec.hpp"

namespace medsynth::app {

namespace {

const QString k_training = QStringLiteral("Training");
const QString k_data = QStringLiteral("Data");
const QString k_parallel = QStringLiteral("Parallel computing");
const QString k_model = QStringLiteral("Model");
const QString k_output = QStringLiteral("Checkpoints & output");
const QString k_diffusion = QStringLiteral("Latent diffusion");

struct Presentation {
  const char* label;
  const char* help;
  double minimum = 0.0;
  double maximum = 0.0;
  QStringList choices{};
  bool advanced = false;
  const char* group = nullptr;  // overrides the section's group
};

QStringList names(std::initializer_list<const char*> list) {
  QStringList out;
  for (const char* n : list) out << QString::fromLatin1(n);
  return out;
}

// Labels and help per path. Ranges mirror engine/config/job_validation.cpp;
// tests/app/job_field_catalog_test.cpp checks every choice against the config library.
const QHash<QString, Presentation>& presentation() {
  static const QHash<QString, Presentation> table = {
      {"name", {"Run name", "Names the run directory: runs/<name>-<YYYYmmdd-HHMMSS>. Letters, digits, '.', '_', '-'.", 0, 0, {}, false, "Checkpoints & output"}},
      {"task", {"Task", "autoencoder: the MAISI KL autoencoder; ldm: the whole latent diffusion pipeline (autoencoder, encode, diffusion UNet, generate); vqgan: the patch-based 3D VQ-GAN; survival: a 3D ResNet risk model (Cox loss, C-index).", 0, 0, names({"autoencoder", "ldm", "vqgan", "survival"})}},
      {"data.source", {"Data source", "simulated: CT-like phantoms (the seeds' default); folder: .nii/.nii.gz/.nrrd/.nhdr/.mha/.mhd files or DICOM series; csv: a manifest with an 'image' column."}},
      {"data.path", {"Data path", "Folder of volumes or CSV manifest (folder/csv sources). Must exist."}},
      {"data.modality", {"Modality", "Chooses the intensity normalisation: a HU window for CT, percentiles for MRI."}},
      {"data.num_train", {"Training phantoms", "Simulated training volumes.", 1, 100000}},
      {"data.num_val", {"Validation phantoms", "Simulated held-out volumes.", 1, 100000}},
      {"data.phantom_size", {"Phantom size (voxels)", "x, y, z; at least the patch size on every axis.", 4, 2048, {}, true}},
      {"data.phantom_spacing", {"Phantom spacing (mm)", "Voxel spacing of the phantoms.", 0.01, 100, {}, true}},
      {"data.noise_hu", {"Phantom noise (HU)", "Gaussian noise added to the phantoms.", 0, 1000, {}, true}},
      {"data.val_fraction", {"Validation fraction", "Real data: the last fraction of the sorted file list is held out.", 0.001, 0.999}},
      {"data.ct_window", {"CT window (HU)", "HU range mapped to [0, 1] and clipped (MAISI: -1000 to 1000).", -5000, 5000, {}, true}},
      {"data.mri_percentiles", {"MRI percentiles", "Intensity percentiles mapped to [0, 1].", 0, 100, {}, true}},
      {"data.target_spacing", {"Resample to spacing (mm)", "Resample every volume to this spacing; empty keeps the native spacing.", 0.01, 100, {}, true}},
      {"data.patch_size", {"Patch size (voxels)", "Random training patch; each axis >= 4 and divisible by 2^(levels-1) (MAISI trains on 64^3).", 4, 1024}},
      {"data.random_flip", {"Random flips", "Flip patches along random axes during training."}},
      {"data.cache_rate", {"Cache rate", "Fraction of preprocessed volumes kept in memory (MONAI CacheDataset).", 0, 1, {}, true}},
      {"data.num_workers", {"Loader threads", "Threads preparing batches (MONAI DataLoader num_workers).", 0, 256, {}, true}},
      {"data.prefetch", {"Prefetch batches", "Batches prepared ahead of the trainer.", 0, 256, {}, true}},
      {"model.tensor_axes", {"Network axis order", "zyx: medsynth's volumes; xyz: MONAI's arrays, as NVIDIA's MAISI weights expect (set by import-maisi; generate only).", 0, 0,
                             names({"zyx", "xyz"}), true}},
      {"model.autoencoder.spatial_dims", {"Spatial dimensions", "Must be 3.", 3, 3, {}, true}},
      {"model.autoencoder.in_channels", {"Input channels", "Image channels in.", 1, 64, {}, true}},
      {"model.autoencoder.out_channels", {"Output channels", "Image channels out.", 1, 64, {}, true}},
      {"model.autoencoder.latent_channels", {"Latent channels", "Channels of the latent (MAISI: 4).", 1, 64}},
      {"model.autoencoder.num_channels", {"Channels per level", "One entry per level; len-1 downsamplings; each divisible by the norm groups (MAISI: 64, 128, 256).", 1, 4096}},
      {"model.autoencoder.num_res_blocks", {"Residual blocks per level", "Same length as the channels per level.", 1, 64}},
      {"model.autoencoder.norm_num_groups", {"GroupNorm groups", "Groups of every GroupNorm (MAISI: 32).", 1, 4096, {}, true}},
      {"model.autoencoder.norm_eps", {"GroupNorm epsilon", "Added to the variance in GroupNorm.", 1e-12, 1, {}, true}},
      {"model.autoencoder.attention_levels", {"Attention per level", "Self-attention at each level; same length as the channels per level.", 0, 0, {}, true}},
      {"model.autoencoder.with_encoder_nonlocal_attn", {"Encoder attention block", "An attention block in the encoder's middle.", 0, 0, {}, true}},
      {"model.autoencoder.with_decoder_nonlocal_attn", {"Decoder attention block", "An attention block in the decoder's middle.", 0, 0, {}, true}},
      {"model.autoencoder.use_checkpointing", {"Activation checkpointing", "Trades compute for memory on GPUs; ignored on CPU.", 0, 0, {}, true}},
      {"model.autoencoder.use_convtranspose", {"Transposed convolutions", "Upsample with transposed convolutions instead of interpolation + conv.", 0, 0, {}, true}},
      {"model.autoencoder.maisi", {"MAISI layout", "MONAI's AutoencoderKlMaisi: the network of NVIDIA's released weights (split convolutions, float32 norms, trilinear upsampling).", 0, 0, {}, true}},
      {"model.autoencoder.num_splits", {"Convolution pieces", "MAISI: run each convolution in this many pieces along the split axis to bound memory; 1 = whole.", 1, 64, {}, true}},
      {"model.autoencoder.dim_split", {"Split axis", "MAISI: the axis the convolutions are cut along (0, 1, 2 = D, H, W).", 0, 2, {}, true}},
      {"model.autoencoder.norm_float16", {"Float16 norms", "MAISI: round every norm's output to float16 (halves its memory on a GPU).", 0, 0, {}, true}},
      {"model.autoencoder.include_fc", {"Attention output projection", "Attention blocks end with a linear projection (MONAI include_fc).", 0, 0, {}, true}},
      {"model.autoencoder.use_combined_linear", {"Combined qkv projection", "Attention blocks use one qkv projection (MONAI use_combined_linear).", 0, 0, {}, true}},
      {"model.discriminator.num_layers_d", {"Discriminator layers", "Strided conv layers of the PatchGAN (MAISI: 3); used when the adversarial weight > 0.", 1, 16, {}, true}},
      {"model.discriminator.channels", {"Discriminator channels", "Channels of its first layer (MAISI: 32).", 1, 4096, {}, true}},
      {"model.discriminator.start_step", {"Adversarial loss from step", "Optimizer step at which the generator's adversarial loss starts.", 0, 1e9, {}, true}},
      {"loss.recon_loss", {"Reconstruction loss", "l1 (MAISI), l2, or l1_window (the window's ends are bounds: at or below the air floor costs nothing).", 0, 0,
                                          names({"l1", "l2", "l1_window"})}},
      {"loss.kl_weight", {"KL weight", "Weight of the KL term (MAISI: 1e-7).", 0, 1e6}},
      {"loss.logvar_clamp", {"Log-variance clamp", "The encoder's log-variance is clamped to this range so the KL term stays finite.", -1000, 1000, {}, true}},
      {"loss.adv_weight", {"Adversarial weight", "0 disables the discriminator (MAISI uses 0.1 on GPUs).", 0, 1e6}},
      {"loss.perceptual_weight", {"Perceptual weight", "Must stay 0: no pretrained perceptual network ships with medsynth.", 0, 0, {}, true}},
      {"training.epochs", {"Epochs", "Passes over the training set (MAISI: 2 simulated, 50+ real); ignored when max steps > 0.", 1, 1e6}},
      {"training.max_steps", {"Max steps", "Stop after this many optimizer steps; 0: the epochs decide.", 0, 1e9}},
      {"training.batch_size", {"Batch size per process", "Volumes per process and micro-batch (MAISI: 1). Effective batch = batch x accumulation x processes.", 1, 4096}},
      {"training.gradient_accumulation_steps", {"Gradient accumulation", "Micro-batches per optimizer step.", 1, 4096}},
      {"training.lr", {"Learning rate", "AdamW learning rate (MAISI: 1e-4).", 1e-12, 10}},
      {"training.weight_decay", {"Weight decay", "AdamW weight decay.", 0, 10, {}, true}},
      {"training.betas", {"Adam betas", "Two values in [0, 1).", 0, 0.999999, {}, true}},
      {"training.warmup_steps", {"Warm-up steps", "Linear learning-rate warm-up.", 0, 1e9}},
      {"training.lr_schedule", {"LR schedule", "After warm-up: cosine decay or constant.", 0, 0, names({"cosine", "constant"})}},
      {"training.min_lr_ratio", {"Final LR ratio", "End of the cosine schedule as a fraction of the learning rate.", 0, 1, {}, true}},
      {"training.amp", {"Mixed precision (AMP)", "bf16 autocast on CPU, fp16 with loss scaling on CUDA (MAISI trains with AMP)."}},
      {"training.grad_clip_norm", {"Gradient clip norm", "0 disables clipping.", 0, 1e6, {}, true}},
      {"training.base_seed", {"Base seed", "Process r seeds with base seed + r (as the seeds do per GPU).", 0, 9.007199254740992e15}},
      {"training.deterministic", {"Deterministic", "Deterministic algorithms where LibTorch offers them.", 0, 0, {}, true}},
      {"training.val_every_steps", {"Validate every (steps)", "Validation interval in optimizer steps.", 1, 1e9}},
      {"training.val_max_volumes", {"Validation volumes", "At most this many held-out volumes; 0 = all.", 0, 1e6, {}, true}},
      {"training.val_sliding_window", {"Sliding-window validation", "Reconstruct validation volumes patch by patch with Gaussian blending (as MAISI validates).", 0, 0, {}, true}},
      {"training.val_overlap", {"Window overlap", "Overlap of neighbouring validation windows.", 0, 0.99, {}, true}},
      {"training.ema_decay", {"EMA decay", "Moving average of the weights used for validation and checkpoints; 0 = off.", 0, 0.999999, {}, true}},
      {"training.nan_max_bad_steps", {"Non-finite steps before rollback", "Consecutive non-finite steps before rolling back to the last good checkpoint.", 1, 1000, {}, true}},
      {"training.nan_lr_factor", {"LR factor on rollback", "Learning-rate multiplier applied at each rollback.", 0.001, 0.999, {}, true}},
      {"training.num_threads", {"Threads per process", "Intra-op threads; 0 = all cores.", 0, 1024, {}, true, "Parallel computing"}},
      {"training.per_sample_noise", {"Per-sample noise", "Draw each sample's VAE noise from (seed, epoch, sample) instead of the rank's generator: the same weights whatever ranks x batch x accumulation.", 0, 0, {}, true, "Parallel computing"}},
      {"training.device", {"Device", "auto takes CUDA when present.", 0, 0, names({"auto", "cpu", "cuda"}), false, "Parallel computing"}},
      {"training.memory_format", {"Memory format", "Tensor layout for convolutions; auto picks the faster measured one.", 0, 0, names({"auto", "contiguous", "channels_last_3d"}), true, "Parallel computing"}},
      {"checkpoint.every_steps", {"Checkpoint every (steps)", "Write last.pt every this many steps; 0 = at every validation.", 0, 1e9}},
      {"checkpoint.keep_best", {"Best checkpoints kept", "Top-k checkpoints by the metric below.", 1, 1000}},
      {"checkpoint.metric", {"Ranking metric", "Validation metric that ranks checkpoints (val/psnr, val/ssim, val/l1).", 0, 0, {}, true}},
      {"checkpoint.mode", {"Better is", "Whether a larger (max) or smaller (min) metric is better.", 0, 0, names({"max", "min"}), true}},
      {"checkpoint.resume", {"Resume from", "Empty: fresh start; auto: the run's last checkpoint; or a checkpoint file."}},
      {"distributed.backend", {"Backend", "c10d backend: NCCL with CUDA, else Gloo.", 0, 0, names({"auto", "gloo", "nccl"})}},
      {"distributed.bucket_cap_mb", {"Gradient bucket (MB)", "Gradients are all-reduced in buckets of about this size (DDP: 25).", 0.001, 4096, {}, true}},
      {"distributed.overlap", {"Overlap communication", "All-reduce a bucket during backward as soon as its gradients are ready.", 0, 0, {}, true}},
      {"distributed.drop_last", {"Drop last samples", "Drop the samples that do not fill every process (DistributedSampler).", 0, 0, {}, true}},
      {"distributed.timeout_s", {"Collective timeout (s)", "A collective waiting longer fails the run instead of hanging it.", 0.001, 1e7}},
      {"distributed.join_timeout_s", {"Join timeout (s)", "Every process must join the group within this.", 0.001, 1e7}},
      {"distributed.check_parameters_every", {"Check parameters every (steps)", "Debug: verify identical parameters on all processes; 0 = off.", 0, 1e9, {}, true}},
      {"output.runs_dir", {"Runs folder", "Parent of the run directories."}},
      {"output.tensorboard", {"TensorBoard files", "Also write every metric to tb/ for TensorBoard."}},
      {"output.save_reconstructions", {"Reconstructions saved", "Validation reconstructions written as .nii.gz at the end.", 0, 1000}},
      {"output.log_every_steps", {"Log every (steps)", "Progress and metric events every this many steps.", 1, 1e9, {}, true}},
      {"model.diffusion_unet.channels", {"UNet channels per level", "Diffusion UNet width per level; each a multiple of its GroupNorm groups (MAISI: 64, 128, 256, 512).", 1, 8192}},
      {"model.diffusion_unet.num_res_blocks", {"UNet blocks per level", "Residual blocks per level, one entry per level (MAISI: 2).", 1, 64}},
      {"model.diffusion_unet.attention_levels", {"UNet attention levels", "Self-attention after each block at these levels (MAISI: the two coarsest)."}},
      {"model.diffusion_unet.num_head_channels", {"Channels per attention head", "Per level; 0 = one head (MAISI: 0, 0, 32, 32).", 0, 8192, {}, true}},
      {"model.diffusion_unet.norm_num_groups", {"UNet GroupNorm groups", "Groups of every GroupNorm in the UNet (MAISI: 32).", 1, 4096, {}, true}},
      {"model.diffusion_unet.norm_eps", {"UNet GroupNorm epsilon", "Epsilon of every GroupNorm in the UNet.", 1e-12, 1, {}, true}},
      {"model.diffusion_unet.include_spacing_input", {"Condition on spacing", "Feed the voxel spacing to the UNet, as MAISI's rflow model does.", 0, 0, {}, true}},
      {"model.diffusion_unet.num_class_embeds", {"Modality classes", "Size of the UNet's class embedding (MAISI: 128 modality classes); 0 = none.", 0, 100000, {}, true}},
      {"model.diffusion_unet.include_top_region_index_input", {"Condition on top region", "The body region of the top slice, as MAISI's ddpm-ct model takes it.", 0, 0, {}, true}},
      {"model.diffusion_unet.include_bottom_region_index_input", {"Condition on bottom region", "The body region of the bottom slice, as MAISI's ddpm-ct model takes it.", 0, 0, {}, true}},
      {"model.diffusion_unet.resblock_updown", {"Residual resampling", "Down- and upsample with residual blocks (MAISI: true).", 0, 0, {}, true}},
      {"model.diffusion_unet.include_fc", {"UNet attention projection", "Attention blocks end with a linear projection (MONAI include_fc).", 0, 0, {}, true}},
      {"model.diffusion_unet.use_combined_linear", {"UNet combined qkv", "Attention blocks use one qkv projection (MONAI use_combined_linear).", 0, 0, {}, true}},
      {"model.diffusion_unet.use_flash_attention", {"Flash attention", "Accepted for MONAI configs; the math is the same either way.", 0, 0, {}, true}},
      {"scheduler.kind", {"Scheduler", "rflow: rectified flow, 30 steps (maisi3d-rflow); ddpm: 1000 steps (maisi3d-ddpm); ddim: N deterministic steps; fast_ddpm: 10 steps for training and sampling.", 0, 0, names({"rflow", "ddpm", "ddim", "fast_ddpm"}), false, "Latent diffusion"}},
      {"scheduler.num_train_timesteps", {"Training timesteps", "T of the noise schedule (MONAI/MAISI: 1000).", 2, 100000, {}, true, "Latent diffusion"}},
      {"scheduler.beta_schedule", {"Beta schedule", "linear_beta or scaled_linear_beta (MAISI ddpm).", 0, 0, names({"linear_beta", "scaled_linear_beta"}), true, "Latent diffusion"}},
      {"scheduler.beta_start", {"Beta start", "First beta of the schedule (MAISI: 0.0015).", 1e-8, 0.999, {}, true, "Latent diffusion"}},
      {"scheduler.beta_end", {"Beta end", "Last beta of the schedule (MAISI: 0.0195).", 1e-8, 0.999, {}, true, "Latent diffusion"}},
      {"scheduler.prediction_type", {"Prediction type", "What a DDPM/DDIM/Fast-DDPM network predicts: epsilon, sample (x0) or v_prediction; rectified flow always predicts the velocity.", 0, 0, names({"epsilon", "sample", "v_prediction"}), true, "Latent diffusion"}},
      {"scheduler.num_inference_steps", {"Sampling steps", "Reverse steps when generating (rflow 30, ddpm 1000, ddim 50).", 1, 100000, {}, false, "Latent diffusion"}},
      {"scheduler.ddim_eta", {"DDIM eta", "0: deterministic DDIM/Fast-DDPM sampling; 1: as noisy as DDPM.", 0, 1, {}, true, "Latent diffusion"}},
      {"scheduler.sample_method", {"Timestep sampling", "Rectified flow training timesteps: uniform or logit-normal (MAISI).", 0, 0, names({"uniform", "logit-normal"}), true, "Latent diffusion"}},
      {"scheduler.use_timestep_transform", {"Resolution shift", "Rectified flow: shift timesteps toward noise for latents larger than the base size (MAISI).", 0, 0, {}, true, "Latent diffusion"}},
      {"scheduler.base_img_size_numel", {"Base latent voxels", "Latent voxel count at which the shift is neutral (MAISI: 32^3).", 1, 1e12, {}, true, "Latent diffusion"}},
      {"scheduler.fast_ddpm_schedule", {"Fast-DDPM timesteps", "uniform: every T/10; non-uniform: 40 % below 0.7 T, 60 % above (Fast-DDPM).", 0, 0, names({"uniform", "non-uniform"}), true, "Latent diffusion"}},
      {"scheduler.fast_ddpm_steps", {"Fast-DDPM steps", "Timesteps used for training and sampling (Fast-DDPM: 10).", 2, 100000, {}, true, "Latent diffusion"}},
      {"ldm.autoencoder_checkpoint", {"Autoencoder checkpoint", "Use this trained autoencoder; empty: train one as the pipeline's first stage.", 0, 0, {}, false, "Latent diffusion"}},
      {"ldm.autoencoder_steps", {"Autoencoder steps", "Optimizer steps of the autoencoder stage (the diffusion stage uses training.max_steps).", 1, 1e9, {}, false, "Latent diffusion"}},
      {"ldm.embedding_dir", {"Embedding folder", "Latents are read from (or written to) here; empty: the run's embedding/.", 0, 0, {}, true, "Latent diffusion"}},
      {"ldm.scale_factor", {"Latent scale factor", "Multiplies latents before diffusion; 0: 1 / std of the encoded latents (MAISI).", 0, 1e6, {}, true, "Latent diffusion"}},
      {"ldm.encode_sample", {"Encode a sample", "Store a sample of q(z|x) instead of its mean.", 0, 0, {}, true, "Latent diffusion"}},
      {"ldm.encode_tile", {"Encode in tiles", "Encode each volume in overlapping latent tiles of this edge (bounds memory on whole CTs: 512x512x256 needs ~4 GB at 32); 0 = whole.", 0, 4096, {}, true, "Latent diffusion"}},
      {"generate.num_images", {"Images to generate", "0: one per process; more are handed out round robin.", 0, 1e6, {}, false, "Latent diffusion"}},
      {"generate.base_seed", {"Generation base seed", "Image k uses seed base_seed + k: image_seed{S}_rank{R}.nii.gz. 0 is a valid seed.", 0, 9e15, {}, false, "Latent diffusion"}},
      {"generate.output_size", {"Output size (voxels)", "x, y, z of each generated image; multiples of the autoencoder x UNet downsampling.", 1, 4096, {}, false, "Latent diffusion"}},
      {"generate.spacing", {"Output spacing (mm)", "Voxel spacing written to the generated NIfTI files.", 0.001, 100, {}, false, "Latent diffusion"}},
      {"generate.orientation", {"Output orientation", "Axis directions of the generated files: RAS (MAISI) or LPS.", 0, 0, names({"RAS", "LPS"}), true, "Latent diffusion"}},
      {"generate.decode_tile", {"Decode tile (latent voxels)", "Decode in overlapping tiles of this edge to bound memory; 0: in one piece.", 0, 4096, {}, true, "Latent diffusion"}},
      {"generate.evaluate", {"Evaluate the generated images", "After generating: MS-SSIM, MMD and HU checks against the training data, and a memorization audit (RUN/evaluation).", 0, 0, {}, false, "Latent diffusion"}},
      {"generate.decode_overlap", {"Tile overlap", "Overlap of neighbouring decode tiles (NV-Generate: 0.6666).", 0, 0.99, {}, true, "Latent diffusion"}},
      {"generate.decode_blend", {"Tile blending", "How overlapping tiles are weighted: linear ramp, or MONAI's Gaussian (NV-Generate).", 0, 0,
                                 names({"linear", "gaussian"}), true, "Latent diffusion"}},
      {"generate.modality", {"Modality class", "Class label for a UNet with a class embedding (MAISI: 1 = CT).", 0, 100000, {}, true, "Latent diffusion"}},
      {"generate.top_region_index", {"Top body region", "4 values, one-hot: head, chest, abdomen, lower body of the top slice (MAISI ddpm-ct).", 0, 1, {}, true, "Latent diffusion"}},
      {"generate.bottom_region_index", {"Bottom body region", "4 values, one-hot, of the bottom slice (MAISI ddpm-ct).", 0, 1, {}, true, "Latent diffusion"}},
      {"data.patch_stride", {"Patch stride (voxels)", "VQ-GAN grid patches: step between patches per axis (seed: 128 = no overlap); 0: the patch size.", 0, 4096, {}, true}},
      {"data.patch_min_foreground", {"Min. foreground per patch", "VQ-GAN: keep only grid patches with at least this share of foreground voxels; 0: every patch.", 0, 1, {}, true}},
      {"data.foreground_threshold", {"Foreground threshold", "Normalised intensity above which a voxel counts as foreground (0.1 = -800 HU).", 0, 1, {}, true}},
      {"model.vqgan.num_embeddings", {"Codebook size", "Number of codes (n_codes; seed: 16384).", 2, 1e7}},
      {"model.vqgan.embedding_dim", {"Code dimension", "Channels of each code (seed: 8).", 1, 4096}},
      {"model.vqgan.commitment_cost", {"Commitment cost", "Weight of ||z - sg[e]||^2 (beta, 0.25).", 0, 100, {}, true}},
      {"model.vqgan.codebook_update", {"Codebook update", "ema: moving averages of the assigned vectors; straight_through: codebook loss by gradient.", 0, 0, names({"ema", "straight_through"}), true}},
      {"model.vqgan.ema_decay", {"Codebook EMA decay", "Decay of the codebook's moving averages (0.99).", 0, 0.999999, {}, true}},
      {"model.vqgan.dead_code_threshold", {"Dead-code threshold", "Codes whose usage share falls below this are restarted on encoder outputs; 0: never.", 0, 0.999999, {}, true}},
      {"model.vqgan.discriminator_iter_start", {"Discriminator from step", "discriminator_iter_start: the 3D patch discriminator joins at this optimizer step (seed: 10000).", 0, 1e9}},
      {"model.vqgan.image_gan_weight", {"Image GAN weight", "image_gan_weight: weight of the discriminator's generator loss (seed: 1.0); 0 disables it.", 0, 1e6}},
      {"data.covariates", {"Clinical covariates", "Survival: comma-separated CSV columns added to the risk as a linear term (e.g. \"age, sex\"); empty: none.", 0, 0, {}, true}},
      {"data.smart_cache", {"SmartCache", "Survival: MONAI SmartCacheDataset - hold cache_rate of the volumes, replace replace_rate of them each epoch in the background."}},
      {"data.replace_rate", {"Replace rate", "Share of the SmartCache replaced each epoch (seed: 0.3 with cache_rate 0.7).", 0, 1, {}, true}},
      {"model.resnet.depth", {"ResNet depth", "10, 18, 34 (BasicBlock) or 50 (Bottleneck; the seed's resnet50).", 10, 50}},
      {"model.resnet.block_inplanes", {"ResNet widths", "Channels of layer1..layer4 (MONAI: 64, 128, 256, 512; x4 for depth 50).", 1, 4096, {}, true}},
      {"model.resnet.conv1_t_size", {"First conv kernel", "Kernel of conv1 (MONAI: 7); odd.", 1, 31, {}, true}},
      {"model.resnet.conv1_t_stride", {"First conv stride", "Stride of conv1 (MONAI: 1).", 1, 8, {}, true}},
      {"model.resnet.no_max_pool", {"No max-pool", "Skip the max-pool after conv1 (MONAI's no_max_pool).", 0, 0, {}, true}},
      {"model.resnet.norm", {"ResNet norm", "batch (MONAI; statistics averaged over processes before validation) or group.", 0, 0, names({"batch", "group"}), true}},
      {"checkpoint.name_prefix", {"Checkpoint name prefix", "Empty: best-<metric>-<value>-step<N>; else <prefix>-epochXX-psnrYY.YY (seed: vqgan-patches).", 0, 0, {}, true}},
  };
  return table;
}

QString group_of_section(const QString& path) {
  const QString top = path.section(QLatin1Char('.'), 0, 0);
  if (top == QLatin1String("data")) return k_data;
  if (top == QLatin1String("model") || top == QLatin1String("loss") || top == QLatin1String("task")) return k_model;
  if (top == QLatin1String("distributed")) return k_parallel;
  if (top == QLatin1String("checkpoint") || top == QLatin1String("output")) return k_output;
  if (top == QLatin1String("scheduler") || top == QLatin1String("ldm") || top == QLatin1String("generate")) return k_diffusion;
  return k_training;
}

// Walks the schema: one JobField per leaf, kind and default from the C++ type.
struct CatalogVisitor {
  QStringList prefix;
  QList<JobField> fields;

  template <class F>
  void section(const char* key, F&& body) {
    prefix << QString::fromLatin1(key);
    body();
    prefix.removeLast();
  }

  JobField& add(const char* key, const QString& kind, QVariant default_value) {
    JobField f;
    f.path = (prefix + QStringList{QString::fromLatin1(key)}).join(QLatin1Char('.'));
    f.kind = kind;
    f.default_value = std::move(default_value);
    fields << f;
    return fields.back();
  }

  void field(const char* key, const std::string& v) { add(key, QStringLiteral("string"), QString::fromStdString(v)); }
  void field(const char* key, const int& v) { add(key, QStringLiteral("int"), v); }
  void field(const char* key, const std::int64_t& v) { add(key, QStringLiteral("int"), static_cast<qlonglong>(v)); }
  void field(const char* key, const double& v) { add(key, QStringLiteral("double"), v); }
  void field(const char* key, const bool& v) { add(key, QStringLiteral("bool"), v); }
  void field(const char* key, const DataSource& v) {
    auto& f = add(key, QStringLiteral("choice"), QString::fromLatin1(to_string(v).data(), static_cast<qsizetype>(to_string(v).size())));
    for (const auto& n : data_source_names()) f.choices << QString::fromStdString(n);
  }
  void field(const char* key, const Modality& v) {
    auto& f = add(key, QStringLiteral("choice"), QString::fromLatin1(to_string(v).data(), static_cast<qsizetype>(to_string(v).size())));
    for (const auto& n : modality_names()) f.choices << QString::fromStdString(n);
  }
  template <class T, std::size_t N>
  void field(const char* key, const std::array<T, N>& v) {
    QVariantList list;
    for (const auto& x : v) list << QVariant::fromValue(x);
    add(key, list_kind<T>(), list).list_length = static_cast<int>(N);
  }
  template <class T>
  void field(const char* key, const std::vector<T>& v) {
    QVariantList list;
    for (const auto& x : v) list << QVariant::fromValue(static_cast<T>(x));
    add(key, list_kind<T>(), list);
  }
  template <class T, std::size_t N>
  void field(const char* key, const std::optional<std::array<T, N>>& v) {
    QVariantList list;
    if (v)
      for (const auto& x : *v) list << QVariant::fromValue(x);
    auto& f = add(key, list_kind<T>(), v ? QVariant(list) : QVariant());
    f.list_length = static_cast<int>(N);
    f.nullable = true;
  }

  template <class T>
  static QString list_kind() {
    if constexpr (std::is_same_v<T, bool>) return QStringLiteral("bool_list");
    else if constexpr (std::is_integral_v<T>) return QStringLiteral("int_list");
    else return QStringLiteral("double_list");
  }
};

QList<JobField> build_catalog() {
  const JobSpec defaults;
  CatalogVisitor visitor;
  visit_job(defaults, visitor);
  const QSet<QString> paths_as_files{QStringLiteral("data.path"), QStringLiteral("checkpoint.resume"), QStringLiteral("output.runs_dir")};
  for (auto& f : visitor.fields) {
    f.group = group_of_section(f.path);
    if (paths_as_files.contains(f.path)) f.kind = QStringLiteral("path");
    const auto it = presentation().constFind(f.path);
    if (it == presentation().constEnd()) {
      // A field added to the schema before the console knew it: shown plainly.
      f.label = f.path.section(QLatin1Char('.'), -1).replace(QLatin1Char('_'), QLatin1Char(' '));
      f.help = QStringLiteral("See docs/job-file.md.");
      f.advanced = true;
      continue;
    }
    f.label = QString::fromUtf8(it->label);
    f.help = QString::fromUtf8(it->help);
    f.minimum = it->minimum;
    f.maximum = it->maximum;
    f.advanced = it->advanced;
    if (it->group) f.group = QString::fromUtf8(it->group);
    if (!it->choices.isEmpty() && f.kind == QLatin1String("string")) {
      f.kind = QStringLiteral("choice");
      f.choices = it->choices;
    }
  }
  return visitor.fields;
}

}  // namespace

QStringList job_field_groups() { return {k_training, k_data, k_parallel, k_model, k_diffusion, k_output}; }

QList<JobField> job_field_catalog() {
  static const QList<JobField> catalog = build_catalog();
  return catalog;
}

std::optional<JobField> find_job_field(const QString& path) {
  static const QHash<QString, JobField> by_path = [] {
    QHash<QString, JobField> map;
    for (const auto& f : job_field_catalog()) map.insert(f.path, f);
    return map;
  }();
  const auto it = by_path.constFind(path);
  if (it == by_path.constEnd()) return std::nullopt;
  return *it;
}

QStringList LaunchOptions::validate() const {
  QStringList errors;
  if (nproc_per_node < 1) errors << QStringLiteral("nproc_per_node: must be >= 1 (got %1)").arg(nproc_per_node);
  if (max_restarts < 0) errors << QStringLiteral("max_restarts: must be >= 0 (got %1)").arg(max_restarts);
  return errors;
}

QList<JobField> launch_option_catalog() {
  JobField nproc;
  nproc.path = QStringLiteral("launch.nproc_per_node");
  nproc.label = QStringLiteral("Processes per node");
  nproc.group = k_parallel;
  nproc.kind = QStringLiteral("int");
  nproc.help = QStringLiteral("Training processes on this machine (torchrun --nproc_per_node): one per GPU, or several CPU "
                              "processes with Gloo. Effective batch = batch x accumulation x processes.");
  nproc.minimum = 1;
  nproc.maximum = 1024;
  nproc.default_value = 1;
  JobField restarts;
  restarts.path = QStringLiteral("launch.max_restarts");
  restarts.label = QStringLiteral("Max restarts");
  restarts.group = k_parallel;
  restarts.kind = QStringLiteral("int");
  restarts.help = QStringLiteral("When a process dies, restart all of them from the last checkpoint up to this many times.");
  restarts.minimum = 0;
  restarts.maximum = 100;
  restarts.default_value = 0;
  return {nproc, restarts};
}

}  // namespace medsynth::app

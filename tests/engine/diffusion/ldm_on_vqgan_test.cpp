// Issue 36 item 2: diffusion on a VQ-GAN's codes (ldm.first_stage: vqgan,
// medicaldiffusion's second stage).
//  - The must-show, through the real binary on 2 ranks: a VQ-GAN with the
//    seed's three loss weights (2D slice and 3D patch discriminators,
//    perceptual loss on the MedicalNet-layout fixture network), then
//    resources/jobs/ldm-vqgan-tiny.yaml on its checkpoint: its codes are
//    encoded (embedding_dim channels, the VQ-GAN's grid), the UNet trains on
//    them and each rank generates its image through the codebook.
//  - The first stage itself: what the latent stages call is the VQ-GAN's own
//    path (encode then decode = its reconstruction), and a checkpoint of
//    another task or of another network is refused naming the field.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "diffusion/latent_files.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/run_events.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

const std::string k_source = MEDSYNTH_SOURCE_DIR;

JobSpec tiny_vqgan_job() {
  JobSpec job;
  job.task = "ldm";
  job.ldm.first_stage = "vqgan";
  auto& a = job.model.autoencoder;
  a.num_channels = {8, 8};
  a.num_res_blocks = {1, 1};
  a.attention_levels = {false, false};
  a.norm_num_groups = 4;
  job.model.vqgan.num_embeddings = 16;
  job.model.vqgan.embedding_dim = 4;
  return job;
}

// A checkpoint as a VQ-GAN run writes one: the generator's tensors under
// model.vqgan., a discriminator's beside them, the task in the metadata.
void write_vqgan_checkpoint(const std::string& path, Vqgan& vqgan, const std::string& task) {
  TensorFile file;
  for (const auto& p : vqgan->named_parameters(true))
    file.tensors["model.vqgan." + p.key()] = p.value().detach().clone();
  for (const auto& b : vqgan->named_buffers(true)) file.tensors["model.vqgan." + b.key()] = b.value().detach().clone();
  file.tensors["model.discriminator.conv.weight"] = at::ones({2, 2});
  file.metadata["task"] = task;
  write_tensor_file(path, file);
}

}  // namespace

TEST(LdmOnVqganCodes, TheFirstStageEncodesCodesAndDecodesThroughTheCodebook) {
  test::TempDir dir("vqgan-first-stage");
  const JobSpec job = tiny_vqgan_job();
  at::manual_seed(3);
  Vqgan vqgan(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss), job.model.vqgan);
  const std::string checkpoint = (dir / "vqgan.safetensors").string();
  write_vqgan_checkpoint(checkpoint, vqgan, "vqgan");

  const FirstStage stage = load_first_stage(job, checkpoint, c10::Device(c10::kCPU));
  EXPECT_EQ(stage.scale(), 2);
  EXPECT_FALSE(stage.kl());
  vqgan->eval();
  at::NoGradGuard no_grad;
  const at::Tensor x = at::rand({1, 1, 16, 16, 16});
  const at::Tensor codes = stage.encode(x);
  EXPECT_EQ(codes.sizes(), (at::IntArrayRef{1, 4, 8, 8, 8}));
  // Codes before quantisation: not all codebook entries.
  EXPECT_GT((codes - vqgan->quantizer->forward(codes).quantized).abs().max().item<double>(), 1e-4);
  // Encode then decode is the network's own reconstruction.
  EXPECT_TRUE(at::allclose(stage.decode(codes), vqgan->reconstruct(x), 1e-5, 1e-6));
  // A sampled latent is snapped to its nearest codes: a small nudge that
  // moves no vector to another code decodes to the same image.
  const at::Tensor snapped = vqgan->quantizer->forward(codes).quantized;
  EXPECT_TRUE(at::allclose(stage.decode(snapped + 1e-4 * at::randn_like(snapped)), stage.decode(snapped), 1e-5, 1e-6));
  // The UNet's channels follow the codes'.
  EXPECT_EQ(ldm_latent_channels(job), 4);
}

TEST(LdmOnVqganCodes, ACheckpointOfAnotherTaskOrNetworkIsRefusedNamingTheField) {
  test::TempDir dir("vqgan-first-stage-errors");
  const JobSpec job = tiny_vqgan_job();
  Vqgan vqgan(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss), job.model.vqgan);
  const std::string autoencoder = (dir / "autoencoder.safetensors").string();
  write_vqgan_checkpoint(autoencoder, vqgan, "autoencoder");
  try {
    load_first_stage(job, autoencoder, c10::Device(c10::kCPU));
    FAIL() << "an autoencoder run's checkpoint was taken for a VQ-GAN";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("ldm.autoencoder_checkpoint: " + autoencoder +
                                         " is a checkpoint of task autoencoder"),
              std::string::npos)
        << e.what();
  }
  const std::string other = (dir / "vqgan.safetensors").string();
  write_vqgan_checkpoint(other, vqgan, "vqgan");
  JobSpec wider = job;
  wider.model.vqgan.embedding_dim = 8;
  try {
    load_first_stage(wider, other, c10::Device(c10::kCPU));
    FAIL() << "a VQ-GAN of another embedding_dim was loaded";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ldm.autoencoder_checkpoint: " + other), std::string::npos) << message;
    EXPECT_NE(message.find("model.vqgan must be the VQ-GAN run's"), std::string::npos) << message;
  }
}

TEST(LdmOnVqganCodes, AVqganWithTheSeedWeightsOnTwoRanksThenAnLdmOnItsCodesGeneratesOneImagePerRank) {
  test::TempDir dir("ldm-on-vqgan");
  const std::string network = k_source + "/tests/engine/metrics/data/medicalnet_perceptual_resnet10.pth";
  const auto vq = test::run_process(
      {test::engine_binary(), "launch", "--nproc-per-node", "2", "train", k_source + "/resources/jobs/vqgan-tiny.yaml",
       test::k_on_cpu, "model.vqgan.discriminator_iter_start=20", "model.vqgan.image_gan_weight=1.0",
       "model.vqgan.video_gan_weight=0.5", "model.vqgan.gan_feat_weight=4.0", "loss.perceptual_weight=0.1",
       "loss.perceptual_network=" + network, "training.max_steps=60", "training.val_every_steps=60", "--runs-dir",
       (dir / "vqgan").string(), "--no-progress"},
      dir.path().string());
  ASSERT_EQ(vq.exit_code, 0) << vq.err;
  const fs::path vqgan_run = test::only_run_in(dir / "vqgan");
  const auto vq_events = test::events_of(vqgan_run / "events.jsonl");
  for (const char* term : {"train/perceptual_loss", "train/gen_adv_loss", "train/slice_gen_adv_loss"})
    EXPECT_FALSE(test::metric(vq_events, term).empty()) << term << ": the seed's weights were not all on";
  const std::string checkpoint = (vqgan_run / "checkpoints" / "last.safetensors").string();

  const auto ldm = test::run_process(
      {test::engine_binary(), "launch", "--nproc-per-node", "2", "train",
       k_source + "/resources/jobs/ldm-vqgan-tiny.yaml", test::k_on_cpu, "ldm.autoencoder_checkpoint=" + checkpoint,
       "training.max_steps=30", "training.val_every_steps=30", "scheduler.num_inference_steps=10", "--runs-dir",
       (dir / "ldm").string(), "--no-progress"},
      dir.path().string());
  ASSERT_EQ(ldm.exit_code, 0) << ldm.err;
  const fs::path run = test::only_run_in(dir / "ldm");
  const auto events = test::events_of(run / "events.jsonl");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().value("status", ""), "completed");
  bool given = false;
  for (const auto& e : events)
    if (e.value("type", "") == "stage" && e.value("stage", "") == "autoencoder")
      given = e.value("status", "") == "given" && e.value("dir", "") == checkpoint;
  EXPECT_TRUE(given) << "the VQ-GAN's checkpoint was not the first stage";

  // The codes: embedding_dim channels on the VQ-GAN's 2x-downsampled grid.
  const auto latents = read_latents((run / "embedding").string(), "train");
  ASSERT_EQ(latents.size(), 4u);
  for (const auto& r : latents) EXPECT_EQ(r.latent.sizes(), (at::IntArrayRef{4, 24, 24, 24})) << r.file;
  const auto loss = test::metric(events, "diffusion/val/diffusion_loss");
  ASSERT_FALSE(loss.empty());
  EXPECT_TRUE(std::isfinite(loss.back()));

  // One image per rank, on the requested grid, finite and not flat.
  for (const char* name : {"image_seed42_rank0.nii.gz", "image_seed43_rank1.nii.gz"}) {
    const fs::path image = run / "output" / name;
    ASSERT_TRUE(fs::exists(image)) << image;
    const Volume v = read_volume(image.string());
    EXPECT_EQ(v.size, (std::array<std::size_t, 3>{48, 48, 48})) << name;
    const at::Tensor t = at::tensor(v.voxels);
    EXPECT_TRUE(t.isfinite().all().item<bool>()) << name;
    EXPECT_GT(t.std().item<double>(), 1.0) << name << " is flat";
  }
}

// Fine-tuning MAISI as NVIDIA trains it (issue 49): an imported run carries
// NV-Generate's recipe (diff_model_train.py: Adam, PolynomialLR of power 2,
// L1, no clipping; the model's diffusion_unet_train lr, batch and epochs; the
// ControlNet's weighted region; MR percentiles 0-99.5 unclipped), the class
// label is dropped to 0 with NV-Generate's probability on every step whatever
// draws the noise, and each embedding file trains its own modality. On the
// miniature NV-Generate folder (data/make_maisi_folder.py: MONAI's classes,
// NVIDIA's config layout).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "diffusion/controlnet_task.hpp"
#include "diffusion/latent_batch_loader.hpp"
#include "diffusion/latent_files.hpp"
#include "diffusion/ldm_task.hpp"
#include "diffusion/maisi_import.hpp"
#include "models/controlnet_maisi.hpp"
#include "models/diffusion_model_unet.hpp"
#include "contract/run_directory.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"
#include "support/child_process.hpp"
#include "support/nv_generate_embedding.hpp"
#include "support/run_events.hpp"
#include "support/temp_dir.hpp"
#include "train/training_data.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using test::write_nv_generate_embedding;

const fs::path k_data = MEDSYNTH_DIFFUSION_TEST_DATA;

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string import_folder(const fs::path& folder, const fs::path& out, const std::string& model = "rflow-ct",
                          std::vector<std::string>* notes = nullptr) {
  MaisiImportOptions o;
  o.folder = folder.string();
  o.out = out.string();
  o.model = model;
  const auto result = import_maisi(o);
  if (notes) *notes = result.notes;
  return o.out;
}

TEST(MaisiRecipe, AnImportedRunFineTunesWithNvGeneratesRecipe) {
  test::TempDir dir("maisi-recipe");
  const fs::path folder = dir / "nv-generate";
  fs::copy(k_data / "maisi_folder", folder, fs::copy_options::recursive);
  // NVIDIA's published layout of the two training configs.
  write_text(folder / "configs" / "config_maisi_diff_model_rflow-ct.json",
             R"({"diffusion_unet_train": {"batch_size": 2, "cache_rate": 0, "lr": 1e-05, "n_epochs": 100}})");
  write_text(folder / "configs" / "config_maisi_controlnet_train_rflow-ct.json",
             R"({"controlnet_train": {"batch_size": 1, "cache_rate": 0.0, "fold": 0, "lr": 3e-05, "n_epochs": 100,
                 "weighted_loss_label": [129], "weighted_loss": 100}})");
  std::vector<std::string> notes;
  const std::string run = import_folder(folder, dir / "run", "rflow-ct", &notes);
  const JobSpec job = load_job_file(RunDirectory{run}.job_file());
  const TrainingSpec& t = job.training;
  EXPECT_EQ(t.optimizer, "adam");
  EXPECT_EQ(t.weight_decay, 0.0);
  EXPECT_EQ(t.lr, 1e-5);
  EXPECT_EQ(t.batch_size, 2);
  EXPECT_EQ(t.epochs, 100);
  EXPECT_EQ(t.lr_schedule, "polynomial");
  EXPECT_EQ(t.lr_power, 2.0);
  EXPECT_EQ(t.warmup_steps, 0);
  EXPECT_EQ(t.grad_clip_norm, 0.0) << "NV-Generate does not clip";
  EXPECT_EQ(job.ldm.diffusion_loss, "l1");
  EXPECT_EQ(job.ldm.controlnet_weighted_loss, 100.0);
  EXPECT_EQ(job.ldm.controlnet_weighted_labels, (std::vector<int>{129}));
  bool named = false;
  for (const auto& n : notes) named = named || n.find("training.lr=3e-05") != std::string::npos;
  EXPECT_TRUE(named) << "the ControlNet's own learning rate is named";
  // An override still wins over the recipe.
  const JobSpec overridden = load_job_file_with_overrides(RunDirectory{run}.job_file(), {"ldm.diffusion_loss=mse"});
  EXPECT_EQ(overridden.ldm.diffusion_loss, "mse");

  // A wrong type in the recipe names the file.
  write_text(folder / "configs" / "config_maisi_diff_model_rflow-ct.json",
             R"({"diffusion_unet_train": {"lr": "fast"}})");
  try {
    import_folder(folder, dir / "run2");
    ADD_FAILURE() << "a recipe with a string lr was imported";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("config_maisi_diff_model_rflow-ct.json"), std::string::npos) << e.what();
  }
}

// NV-Generate prepares MR with ScaleIntensityRangePercentiles(0, 99.5, 0, 1,
// clip=False): voxels above the 99.5th percentile stay above 1.
TEST(MaisiRecipe, AnImportedMrRunScalesByPercentilesWithoutClipping) {
  test::TempDir dir("maisi-recipe-mr");
  const std::string run = import_folder(k_data / "maisi_folder_mr", dir / "run", "rflow-mr");
  const JobSpec job = load_job_file(RunDirectory{run}.job_file());
  EXPECT_EQ(job.data.mri_percentiles, (std::array<double, 2>{0.0, 99.5}));
  EXPECT_FALSE(job.data.mri_clip);
  EXPECT_EQ(job.training.lr, 1e-5) << "the MR model's diffusion_unet_train lr";
}

// Issue 54, item 1: NV-Generate samples MR at the recipe's field of view
// (diffusion_unet_inference's dim and spacing), not config_infer.json's CT one.
TEST(MaisiRecipe, AnImportedMrRunSamplesAtTheRecipesFieldOfView) {
  test::TempDir dir("maisi-recipe-mr-fov");
  const fs::path folder = dir / "nv-generate";
  fs::copy(k_data / "maisi_folder_mr", folder, fs::copy_options::recursive);
  const fs::path recipe = folder / "configs" / "config_maisi_diff_model_rflow-mr.json";
  nlohmann::json j = nlohmann::json::parse(std::ifstream(recipe));
  j["diffusion_unet_inference"]["dim"] = {32, 16, 16};
  j["diffusion_unet_inference"]["spacing"] = {1.25, 1.0, 1.0};
  write_text(recipe, j.dump(4));
  const JobSpec job = load_job_file(RunDirectory{import_folder(folder, dir / "run", "rflow-mr")}.job_file());
  EXPECT_EQ(job.generate.output_size, (std::array<int, 3>{32, 16, 16}));
  EXPECT_EQ(job.generate.spacing, (std::array<double, 3>{1.25, 1.0, 1.0}));
}

// NV-Generate's augment_modality_label on the keys the training batches
// carry: over 6000 samples, class 3 (a CT variant) becomes 0 with
// probability 0.1 and 1 with 0.9 x 0.1, as torch.rand draws them there;
// each share within four binomial standard deviations.
TEST(MaisiRecipe, TheClassLabelIsDroppedAtNvGeneratesRateOnTheBatchKeys) {
  std::vector<LatentRecord> latents(12);
  for (std::size_t i = 0; i < latents.size(); ++i) {
    latents[i].id = "case" + std::to_string(i);
    latents[i].split = "train";
    latents[i].latent = at::zeros({4, 4, 4, 4});
  }
  latents[5].modality = 10;  // an mri_t2 file among them keeps its own class
  LatentLoaderOptions o;
  o.batch_size = 2;
  o.base_seed = 7;
  LatentBatchLoader loader(latents, o);
  JobSpec job;
  job.model.diffusion_unet.num_class_embeds = 16;
  job.generate.modality = 3;
  std::map<std::int64_t, int> counts;
  int samples = 0, t2 = 0, t2_kept = 0;
  for (int epoch = 0; samples < 6000; ++epoch) {
    loader.start_epoch(epoch);
    while (auto batch = loader.next()) {
      ASSERT_EQ(batch->sample_keys.size(), 2u);
      const auto labels =
          unet_embedding_inputs(job, loader.last_records(), batch->sample_keys, c10::Device(c10::kCPU)).class_labels;
      for (std::size_t i = 0; i < 2; ++i) {
        const auto label = labels[static_cast<std::int64_t>(i)].item<std::int64_t>();
        if (loader.last_records()[i]->modality == 10) {
          ++t2;
          t2_kept += label == 10 ? 1 : 0;
          EXPECT_TRUE(label == 10 || label == 8 || label == 0) << label;
          continue;
        }
        ++counts[label];
        ++samples;
      }
    }
  }
  const auto share_near = [&](std::int64_t label, double p) {
    const double share = static_cast<double>(counts[label]) / samples;
    const double sd = std::sqrt(p * (1 - p) / samples);
    EXPECT_NEAR(share, p, 4 * sd) << "class " << label << ": " << counts[label] << " of " << samples;
  };
  share_near(0, 0.1);
  share_near(1, 0.9 * 0.1);
  share_near(3, 0.9 * 0.9);
  EXPECT_EQ(counts.size(), 3u) << "only 0, 1 and 3 occur";
  EXPECT_GT(t2_kept, t2 * 7 / 10) << "the mri_t2 file trains class 10";
}

// The modality of each NV-Generate embedding, through modality_mapping.json's
// names; a name it does not hold is refused naming the JSON.
TEST(MaisiRecipe, EachEmbeddingFileCarriesItsOwnModality) {
  test::TempDir dir("maisi-recipe-modality");
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  const std::vector<std::pair<std::string, std::int64_t>> files{{"mri_t1", 9}, {"mri_t2", 10}, {"mri_flair", 11}};
  for (const auto& [name, code] : files)
    write_nv_generate_embedding(folder / (name + "_emb.nii.gz"), at::randn({4, 8, 4, 12}, gen),
                                {{"spacing", {1.5, 1.2, 2.0}}, {"modality", name}});
  const auto latents = read_latents(folder.string(), "train");
  ASSERT_EQ(latents.size(), 3u);
  JobSpec job;
  job.model.diffusion_unet.num_class_embeds = 16;
  job.generate.modality = 9;
  const auto labels =
      unet_embedding_inputs(job, {&latents[0], &latents[1], &latents[2]}, {}, c10::Device(c10::kCPU)).class_labels;
  // Sorted by id: mri_flair, mri_t1, mri_t2.
  EXPECT_TRUE(at::equal(labels, at::tensor({11, 9, 10}, at::kLong))) << labels;

  write_nv_generate_embedding(folder / "odd_emb.nii.gz", at::randn({4, 8, 4, 12}, gen),
                              {{"spacing", {1.5, 1.2, 2.0}}, {"modality", "mri_t5"}});
  try {
    read_latents(folder.string(), "train");
    ADD_FAILURE() << "an unknown modality name was read";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("odd_emb.nii.gz.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mri_t5"), std::string::npos) << e.what();
  }
}

// One fine-tuning step's loss is NV-Generate's: L1Loss of the UNet's output
// against images - noise, the input noised as MONAI's RFlowScheduler.add_noise
// does ((1 - t/T) x0 + t/T noise), both written out here rather than taken
// from the scheduler. ldm.diffusion_loss=mse gives the mean square instead.
TEST(MaisiRecipe, OneStepsLossIsNvGeneratesL1OnTheSameBatchNoiseAndTimestep) {
  test::TempDir dir("maisi-recipe-loss");
  const std::string run = import_folder(k_data / "maisi_folder", dir / "run");
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
  write_nv_generate_embedding(folder / "case_emb.nii.gz", at::randn({4, 8, 4, 12}, gen),
                              {{"spacing", {1.5, 1.2, 2.0}}, {"modality", "ct"}});
  std::map<std::string, double> losses;
  for (const std::string kind : {"l1", "mse"}) {
    JobSpec job = load_job_file_with_overrides(RunDirectory{run}.job_file(),
                                               {"ldm.embedding_dir=" + folder.string(), "ldm.diffusion_loss=" + kind});
    job.training.batch_size = 1;
    LdmTask task(job, 0.8);  // the scale the pipeline's encode stage passes
    auto data = task.make_data(RunShard{});
    data->batches().start_epoch(0);
    const auto batch = data->batches().next();
    ASSERT_TRUE(batch.has_value());
    const at::Tensor x0 = batch->images;
    const std::vector<std::uint64_t>& keys = batch->sample_keys;
    std::map<std::string, double> terms;
    at::Tensor loss;
    {
      at::NoGradGuard no_grad;
      loss = task.compute_loss(0, StepBatch{x0, keys, batch->labels, keys}, 0, terms);
    }
    // NV-Generate's step, on the same noise, timestep and class label.
    const auto [noise, u] = batch_draws(x0, keys);
    const auto t = task.scheduler().training_timesteps(u, static_cast<double>(x0.size(2) * x0.size(3) * x0.size(4)));
    const auto tp =
        (t.to(at::kFloat) / static_cast<double>(job.scheduler.noise.num_train_timesteps)).view({-1, 1, 1, 1, 1});
    const auto noisy = (1 - tp) * x0 + tp * noise;
    const auto records = read_latents(folder.string(), "train");
    UnetConditioning conditioning;
    conditioning.embedding = unet_embedding_inputs(job, {&records[0]}, keys, c10::Device(c10::kCPU));
    at::Tensor output;
    {
      at::NoGradGuard no_grad;
      output = task.unet()->forward(noisy, t.to(at::kFloat), conditioning).to(at::kFloat);
    }
    const auto gt = x0 - noise;
    const double expected =
        kind == "l1" ? (output - gt).abs().mean().item<double>() : (output - gt).square().mean().item<double>();
    EXPECT_NEAR(loss.item<double>(), expected, 1e-5) << kind;
    losses[kind] = loss.item<double>();
  }
  EXPECT_GT(std::abs(losses["l1"] - losses["mse"]), 1e-3) << "the field changes the loss";
}

// A one-pair ControlNet folder (a random latent of `seed` and `label`,
// [1, 32, 16, 48]) under DIR/embeddings, and the imported run's job training
// its ControlNet on it with `overrides`.
JobSpec controlnet_job_on_one_pair(const test::TempDir& dir, const at::Tensor& label, std::uint64_t seed,
                                   const std::vector<std::string>& overrides) {
  const RunDirectory imported{import_folder(k_data / "maisi_folder", dir / "run")};
  const fs::path folder = dir / "embeddings";
  LatentRecord record;
  record.id = "pair";
  record.split = "train";
  record.image_spacing = {1.5, 1.2, 2.0};
  record.image_size = {32, 16, 48};
  record.latent = at::randn({4, 8, 4, 12}, at::make_generator<at::CPUGeneratorImpl>(seed));
  write_latent(folder.string(), record);
  write_label(folder.string(), record.id, label);
  std::vector<std::string> all{"task=controlnet",
                               "ldm.diffusion_init=" + imported.stage(k_diffusion_stage).last_checkpoint(),
                               "ldm.controlnet_config=" + imported.stage(k_controlnet_stage).network_config_file(),
                               "ldm.embedding_dir=" + folder.string(), "training.batch_size=1"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_job_file_with_overrides(imported.job_file(), all);
}

// What NV-Generate's train_controlnet.py computes for one step, by its
// definition: the noisy latent of the task's own draws, and the frozen UNet's
// output steered by the task's ControlNet from any label.
class NvGenerateControlNetStep {
 public:
  NvGenerateControlNetStep(const JobSpec& job, ControlNetTask& task, const at::Tensor& x0,
                           const std::vector<std::uint64_t>& keys)
      : unet_(unet_options(job)) {
    at::Tensor u;
    std::tie(noise_, u) = batch_draws(x0, keys);
    const auto scheduler = make_scheduler(job.scheduler);
    t_ = scheduler->training_timesteps(u, static_cast<double>(x0.size(2) * x0.size(3) * x0.size(4))).to(at::kFloat);
    const auto tp = (t_ / static_cast<double>(job.scheduler.noise.num_train_timesteps)).view({-1, 1, 1, 1, 1});
    noisy_ = (1 - tp) * x0 + tp * noise_;
    target_ = x0 - noise_;
    const auto records = read_latents(job.ldm.embedding_dir, "train");
    inputs_ = unet_embedding_inputs(job, {&records[0]}, {}, c10::Device(c10::kCPU));
    controlnet_ = std::dynamic_pointer_cast<ControlNetMaisiImpl>(task.modules().front().module);
    restore_weights({{"unet", unet_.ptr()}}, read_tensor_file(job.ldm.diffusion_init), job.ldm.diffusion_init, true);
    unet_->eval();
  }
  const at::Tensor& target() const { return target_; }
  // label: [1, 32, 16, 48]; its 8 binary channels steer the UNet.
  at::Tensor output(const at::Tensor& label) {
    std::vector<at::Tensor> bits;
    for (int b = 0; b < 8; ++b) bits.push_back(label.to(at::kLong).bitwise_and(1 << b).ne(0).to(at::kFloat));
    UnetEmbeddingInputs classes;
    classes.class_labels = inputs_.class_labels;
    auto residuals = controlnet_->forward(noisy_, t_, at::cat(bits, 0).unsqueeze(0), 1.0, {}, classes);
    UnetConditioning conditioning;
    conditioning.embedding = inputs_;
    conditioning.down_block_additional_residuals = residuals.down_block_residuals;
    conditioning.mid_block_additional_residual = residuals.mid_block_residual;
    return unet_->forward(noisy_, t_, conditioning).to(at::kFloat);
  }

 private:
  DiffusionModelUNet unet_;
  std::shared_ptr<ControlNetMaisiImpl> controlnet_;
  at::Tensor noise_, t_, noisy_, target_;
  UnetEmbeddingInputs inputs_;
};

// The task's first step: its batch, its loss and the terms it logged.
struct FirstStep {
  at::Tensor x0;
  std::vector<std::uint64_t> keys;
  std::map<std::string, double> terms;
  double loss = 0;
};
FirstStep first_step(ControlNetTask& task) {
  auto data = task.make_data(RunShard{});
  data->batches().start_epoch(0);
  const auto batch = data->batches().next();
  if (!batch) throw std::runtime_error("no batch");
  FirstStep f{batch->images, batch->sample_keys, {}, 0};
  f.loss = task.compute_loss(0, StepBatch{f.x0, f.keys, batch->labels, f.keys}, 0, f.terms).item<double>();
  return f;
}

// [1, 32, 16, 48] (an image-grid mask) on the latent grid, every channel.
at::Tensor on_latent_grid(const at::Tensor& image_grid) {
  return at::upsample_nearest3d(image_grid.unsqueeze(0).to(at::kFloat), {8, 4, 12}).expand({1, 4, 8, 4, 12});
}

// The ControlNet step's loss is NV-Generate's train_controlnet.py: L1 of the
// steered UNet's output against images - noise, times weighted_loss on the
// latent voxels whose label (nearest-resized to the latent grid) is one of
// weighted_loss_label, then the mean over every element.
TEST(MaisiRecipe, TheControlNetStepsLossIsNvGeneratesWeightedL1) {
  test::TempDir dir("maisi-recipe-controlnet-loss");
  auto label = at::zeros({1, 32, 16, 48});
  label.narrow(1, 4, 12).narrow(2, 4, 8).narrow(3, 8, 20).fill_(5);
  label.narrow(1, 20, 8).narrow(2, 0, 8).narrow(3, 30, 12).fill_(3);
  const JobSpec job = controlnet_job_on_one_pair(
      dir, label, 21, {"ldm.controlnet_weighted_loss=5", "ldm.controlnet_weighted_labels=[5]"});
  ASSERT_EQ(job.ldm.diffusion_loss, "l1");
  ControlNetTask task(job, 0.8);  // the latent scale the run's encode stage found
  at::NoGradGuard no_grad;
  const FirstStep step = first_step(task);
  const double loss = step.loss;
  NvGenerateControlNetStep nv(job, task, step.x0, step.keys);
  const auto output = nv.output(label);
  const auto weights = at::where(on_latent_grid(label).eq(5), 5.0, 1.0);
  const double expected = ((output - nv.target()).abs() * weights).mean().item<double>();
  EXPECT_NEAR(loss, expected, 1e-5);
  EXPECT_GT(on_latent_grid(label).eq(5).sum().item<std::int64_t>(), 0)
      << "the weighted region must reach the latent grid";
  EXPECT_GT(std::abs(loss - (output - nv.target()).abs().mean().item<double>()), 1e-4) << "the weights must matter";
}

// NV-Generate's region-contrastive ControlNet loss (train_controlnet.py with
// use_region_contrasive_loss): the step's loss is the weighted L1 plus
// weight x (region + background), where region = max(-delta, -mean |output -
// output with the tumour-free label| over the changed latent voxels) and
// background = mean |output with the tumour-free label - target| outside the
// changed voxels dilated by one (3x3x3) on the image grid; both masks
// nearest-resized to the latent grid, every channel counted. The ControlNet's
// zero convolutions are given weights first: untrained, both passes agree.
TEST(MaisiRecipe, TheControlNetStepsRegionContrastiveLossIsNvGenerates) {
  test::TempDir dir("maisi-recipe-region-contrastive");
  // Liver (1) with a hepatic tumour (26) inside it, and a kidney (5).
  auto label = at::zeros({1, 32, 16, 48});
  label.narrow(1, 4, 20).narrow(2, 2, 12).narrow(3, 8, 28).fill_(1);
  label.narrow(1, 8, 8).narrow(2, 4, 8).narrow(3, 16, 12).fill_(26);
  label.narrow(1, 26, 4).narrow(2, 0, 8).narrow(3, 30, 12).fill_(5);
  const double delta = 0.05, weight = 0.5;
  const JobSpec job = controlnet_job_on_one_pair(
      dir, label, 23,
      {"ldm.controlnet_weighted_loss=5", "ldm.controlnet_weighted_labels=[26]",
       "ldm.controlnet_region_contrastive=true", "ldm.controlnet_region_contrastive_delta=0.05",
       "ldm.controlnet_region_contrastive_weight=0.5"});
  ControlNetTask task(job, 0.8);  // the latent scale the run's encode stage found
  at::NoGradGuard no_grad;
  auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  for (auto& p : task.modules().front().module->named_parameters())
    if (p.key().find("controlnet_") != std::string::npos) p.value().copy_(at::randn(p.value().sizes(), gen));
  const FirstStep step = first_step(task);
  const double loss = step.loss;
  NvGenerateControlNetStep nv(job, task, step.x0, step.keys);
  const auto output = nv.output(label);
  const auto output_free = nv.output(at::where(label.eq(26), at::full_like(label, 1), label));  // the tumour made liver
  // The changed voxels, and the background: outside them dilated by one voxel.
  auto near = at::zeros_like(label);
  near.narrow(1, 7, 10).narrow(2, 3, 10).narrow(3, 15, 14).fill_(1);
  const auto region = on_latent_grid(label.eq(26)), background = on_latent_grid(1 - near);
  const auto weights = at::where(on_latent_grid(label).eq(26), 5.0, 1.0);
  const double main = ((output - nv.target()).abs() * weights).mean().item<double>();
  const double apart =
      -((output - output_free).abs() * region).sum().item<double>() / (region.sum().item<double>() + 1e-5);
  const double region_term = std::max(apart, -delta);
  const double background_term =
      ((output_free - nv.target()).abs() * background).sum().item<double>() / (background.sum().item<double>() + 1e-5);
  EXPECT_NEAR(loss, main + weight * (region_term + background_term), 1e-5);
  EXPECT_NEAR(step.terms.at("train/region_contrastive"), region_term, 1e-6);
  EXPECT_NEAR(step.terms.at("train/region_background"), background_term, 1e-6);
  EXPECT_GT(region.sum().item<double>(), 0.0) << "the tumour must reach the latent grid";
  EXPECT_GT(-apart, 1e-4) << "the two passes must differ inside the tumour";
  EXPECT_GT(apart, -delta) << "measured -0.0125: the bound is not what this step tests (RegionContrastiveTerms.* does)";
  EXPECT_GT(std::abs(loss - main), 1e-4) << "the terms must matter";
}

// An imported run takes the three fields from controlnet_train, as
// NV-Generate reads them; a config with the switch but not its two numbers is
// refused, as NV-Generate refuses it.
TEST(MaisiRecipe, TheRegionContrastiveLossComesFromTheControlNetRecipe) {
  test::TempDir dir("maisi-recipe-region-contrastive-import");
  const fs::path folder = dir / "nv-generate";
  fs::copy(k_data / "maisi_folder", folder, fs::copy_options::recursive);
  const fs::path config = folder / "configs" / "config_maisi_controlnet_train_rflow-ct.json";
  write_text(config, R"({"controlnet_train": {"lr": 1e-05, "weighted_loss_label": [23], "weighted_loss": 100,
                 "use_region_contrasive_loss": true, "region_contrasive_loss_delta": 2,
                 "region_contrasive_loss_weight": 0.01}})");
  const std::string run = import_folder(folder, dir / "run");
  const LdmSpec ldm = load_job_file(RunDirectory{run}.job_file()).ldm;
  EXPECT_TRUE(ldm.controlnet_region_contrastive);
  EXPECT_EQ(ldm.controlnet_region_contrastive_delta, 2.0);
  EXPECT_EQ(ldm.controlnet_region_contrastive_weight, 0.01);
  write_text(config,
             R"({"controlnet_train": {"use_region_contrasive_loss": true, "region_contrasive_loss_delta": 2}})");
  try {
    import_folder(folder, dir / "run2");
    ADD_FAILURE() << "a config without region_contrasive_loss_weight was imported";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("region_contrasive_loss_weight"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("config_maisi_controlnet_train_rflow-ct.json"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "run2"));
}

// Fine-tuning with default settings trains the unconditional class (row 0 of
// the class embedding) and each file's own class; classes no file has and
// the augmentation never maps to stay exactly as released (Adam without
// weight decay moves only what gets a gradient). Before issue 49 only row 1
// moved: the dropout ran only with training.per_sample_noise.
TEST(MaisiRecipe, FineTuningTrainsTheUnconditionalClassAndEachFilesOwn) {
  test::TempDir dir("maisi-recipe-rows");
  const std::string run = import_folder(k_data / "maisi_folder", dir / "run");
  const fs::path folder = dir / "embeddings";
  const auto gen = at::make_generator<at::CPUGeneratorImpl>(12);
  for (int i = 0; i < 8; ++i)
    write_nv_generate_embedding(
        folder / ("case" + std::to_string(i) + "_emb.nii.gz"), at::randn({4, 8, 4, 12}, gen),
        {{"spacing", {1.5, 1.2, 2.0}}, {"modality", i % 2 == 0 ? "ct_wo_contrast" : "ct_contrast"}});
  const auto r = test::run_process(
      {test::engine_binary(), "train", run, test::k_on_cpu, "ldm.embedding_dir=" + folder.string(),
       "training.max_steps=30", "training.batch_size=2", "training.lr=1e-3", "training.val_every_steps=30",
       "generate.num_images=1", "--runs-dir", (dir / "runs").string(), "--quiet"},
      dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunDirectory trained{test::only_run_in(dir / "runs").string()};
  const std::string name = "model.unet.class_embedding.weight";
  const at::Tensor before =
      read_tensor_file(RunDirectory{run}.stage(k_diffusion_stage).last_checkpoint()).tensors.at(name);
  const at::Tensor after = read_tensor_file(trained.stage(k_diffusion_stage).last_checkpoint()).tensors.at(name);
  ASSERT_EQ(before.size(0), 8);
  for (std::int64_t row : {0, 1, 2, 3})
    EXPECT_FALSE(at::equal(before[row], after[row])) << "class " << row << " did not train";
  for (std::int64_t row : {4, 5, 6, 7})
    EXPECT_TRUE(at::equal(before[row], after[row])) << "class " << row << " moved without data";
}

}  // namespace
}  // namespace medsynth

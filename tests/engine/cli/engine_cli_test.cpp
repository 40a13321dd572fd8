// medsynth-engine as users run it: real processes, real files, exit codes.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "data/ct_phantom.hpp"
#include "config/network_size.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "run/run_lock.hpp"
#include "state/tensor_file.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;
using test::engine_binary;
using test::run_process;

namespace {

// A job that trains in seconds: tiny phantoms, tiny model, one thread.
const char* k_tiny_job = R"(name: tiny
task: autoencoder
data:
  num_train: 4
  num_val: 2
  phantom_size: [24, 24, 24]
  phantom_spacing: [10.0, 10.0, 10.0]
  patch_size: [16, 16, 16]
  num_workers: 0
model:
  autoencoder:
    num_channels: [4, 8, 8]
    num_res_blocks: [1, 1, 1]
    norm_num_groups: 4
training:
  batch_size: 2
  max_steps: 6
  val_every_steps: 3
  num_threads: 1
output:
  log_every_steps: 1
)";

std::string write_job(const test::TempDir& dir, const std::string& text = k_tiny_job) {
  const auto path = (dir / "job.yaml").string();
  test::write_bytes(path, text);
  return path;
}

void write_phantoms(const fs::path& folder, int count) {
  fs::create_directories(folder);
  PhantomOptions o;
  o.size = {24, 24, 24};
  o.spacing = {10, 10, 10};
  for (int i = 0; i < count; ++i) write_volume(make_ct_phantom(10 + i, o), (folder / ("ct_" + std::to_string(i) + ".nii.gz")).string());
}

// Trains the tiny job for `steps` steps into dir/runs and returns its run
// directory ("" after a failed expectation).
std::string train_tiny_run(const test::TempDir& dir, const std::string& job, int steps) {
  const auto r = run_process({engine_binary(), "train", job, "training.max_steps=" + std::to_string(steps), "--no-progress"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string run_dir;
  if (fs::is_directory(dir / "runs"))
    for (const auto& run : fs::directory_iterator(dir / "runs")) run_dir = run.path().string();
  return r.exit_code == 0 ? run_dir : std::string();
}

std::string host_name() {
  char buffer[256] = {};
  ::gethostname(buffer, sizeof(buffer) - 1);
  return buffer;
}

std::string only_run(const test::TempDir& dir) {
  std::string run;
  if (fs::is_directory(dir / "runs"))
    for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path().string();
  return run;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(EngineCli, InfoJsonIsValidAndNamesLibTorch) {
  test::TempDir dir("cli");
  auto r = run_process({engine_binary(), "info", "--json"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto info = nlohmann::json::parse(r.out);
  EXPECT_FALSE(info.at("libtorch").get<std::string>().empty());
  EXPECT_TRUE(info.at("cuda_available").is_boolean());
  EXPECT_FALSE(info.at("itk").get<std::string>().empty());
  EXPECT_GE(info.at("threads").get<int>(), 1);
}

// The GPU fields are always there, so that a reader (the console, the cuda
// tests) need not guess: null and [] where there is no GPU, filled on one
// (tests/engine/cuda/info_json_test.cpp checks them on a GPU).
TEST(EngineCli, InfoJsonHasTheGpuFieldsEmptyWhereThereIsNoGpu) {
  test::TempDir dir("cli");
  auto r = run_process({engine_binary(), "info", "--json"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info = nlohmann::json::parse(r.out);
  for (const char* key : {"cuda_version", "cuda_driver_version", "cudnn_version", "gpus", "nccl", "cuda_device_count", "devices"})
    EXPECT_TRUE(info.contains(key)) << key << " missing in " << r.out;
  ASSERT_TRUE(info.at("gpus").is_array());
  // LibTorch's CUDA is a fact of the build: a version, or null for a CPU-only LibTorch.
  EXPECT_TRUE(info.at("cuda_version").is_null() || info.at("cuda_version").is_string());
  if (info.at("cuda_available").get<bool>()) {
    EXPECT_EQ(info.at("gpus").size(), info.at("cuda_device_count").get<std::size_t>());
    return;
  }
  EXPECT_TRUE(info.at("gpus").empty());
  EXPECT_TRUE(info.at("cudnn_version").is_null());
  EXPECT_EQ(info.at("cuda_device_count").get<int>(), 0);
  for (const auto& device : info.at("devices")) EXPECT_EQ(device.at("type"), "cpu");
  // Without a driver there is no driver version either (a driver without a GPU may answer).
  if (!fs::exists("/dev/nvidiactl")) EXPECT_TRUE(info.at("cuda_driver_version").is_null());
  auto text = run_process({engine_binary(), "info"}, dir.path().string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("cuDNN none"), std::string::npos) << text.out;
}

TEST(EngineCli, ValidateListsEveryErrorWithItsFieldPathAndExits2) {
  test::TempDir dir("cli");
  std::string text = k_tiny_job;
  text.replace(text.find("  batch_size: 2"), 15, "  batch_szie: 2");
  auto job = write_job(dir, text);
  auto r = run_process({engine_binary(), "validate", job, "training.lr=-1", "data.cache_rate=2"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("training.batch_szie: unknown key; did you mean 'batch_size'?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("training.lr"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data.cache_rate"), std::string::npos) << r.err;
  auto ok = run_process({engine_binary(), "validate", write_job(dir)}, dir.path().string());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// Issue 37, item 7: a job asking for a network larger than the machine (a
// stranger's job.yaml, or a typo of three zeros) is refused naming the file
// and the field, with the estimate, before anything is allocated; it was a
// bad_alloc and a 25-frame backtrace. The same for generate on a run whose
// job.yaml was edited so.
TEST(EngineCli, ANetworkLargerThanTheMachineIsRefusedByFieldNotABacktrace) {
  test::TempDir dir("cli-huge");
  const auto job = write_job(dir);
  auto r = run_process(
      {engine_binary(), "train", job, "model.autoencoder.num_channels=[65536,65536,65536]", "--no-progress"},
      dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("job.yaml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("model.autoencoder asks for a network of about"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "runs")) << "nothing is made for a job that cannot run";
}

// Issue 37, item 7, activations: a patch whose first convolution alone
// outgrows the machine is refused naming data.patch_size and the floor
// (batch x voxels x first-level channels x 2 bytes), before a bad_alloc at
// step 0. The batch is sized from this machine's memory, so the floor
// exceeds it wherever the test runs.
TEST(EngineCli, ActivationsLargerThanTheMachineAreRefusedByFieldNotABacktrace) {
  test::TempDir dir("cli-activations");
  const auto job = write_job(dir);
  const double per_sample = 1024.0 * 1024.0 * 1024.0 * 4 /*num_channels[0]*/ * 2;
  const auto batch = static_cast<long long>(static_cast<double>(physical_memory_bytes()) / per_sample) + 1;
  auto r =
      run_process({engine_binary(), "train", job, "data.phantom_size=[1024,1024,1024]",
                   "data.patch_size=[1024,1024,1024]", "training.batch_size=" + std::to_string(batch), "--no-progress"},
                  dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("data.patch_size needs at least"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("for its activations alone"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "runs")) << "nothing is made for a job that cannot run";
}

// Issue 38: a mistyped verb or flag gets the closest one, as a job field does.
// Issue 36 item 5: the presets are sized from the peak memory runs report
// (docs/gpu-presets.md), so the number must follow what the run held: 64^3
// patches hold 64x the activations of 16^3 ones.
TEST(EngineCli, ARunReportsItsPeakMemoryWhichGrowsWithThePatch) {
  test::TempDir dir("cli-peak-memory");
  const auto job = write_job(dir);
  std::map<int, double> peak;
  for (int patch : {16, 64}) {
    const std::string runs = (dir / ("runs-" + std::to_string(patch))).string();
    const std::string size = std::to_string(patch);
    const auto r = run_process({engine_binary(), "train", job, "data.phantom_size=[64,64,64]",
                                "data.patch_size=[" + size + "," + size + "," + size + "]", "training.max_steps=2",
                                "training.val_every_steps=2", "--runs-dir", runs, "--no-progress"},
                               dir.path().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE((r.out + r.err).find("peak memory: "), std::string::npos) << r.err;
    std::string run_dir;
    for (const auto& run : fs::directory_iterator(runs)) run_dir = run.path().string();
    std::istringstream events(test::read_bytes(run_dir + "/events.jsonl"));
    for (std::string line; std::getline(events, line);) {
      const auto e = nlohmann::json::parse(line);
      if (e.value("type", "") != "run_finished") continue;
      peak[patch] = e.at("extra").at("peak_resident_gib").get<double>();
      EXPECT_FALSE(e.at("extra").contains("peak_device")) << "no accelerator here";
    }
    ASSERT_TRUE(peak.count(patch)) << "no peak memory in run_finished";
  }
  EXPECT_GT(peak[16], 0.01);
  EXPECT_GT(peak[64] - peak[16], 0.04) << peak[16] << " GiB for 16^3 patches, " << peak[64] << " for 64^3";
}

TEST(EngineCli, MistypedVerbsAndFlagsGetSuggestions) {
  test::TempDir dir("cli");
  const std::string job = write_job(dir);
  auto verb = run_process({engine_binary(), "trian", job}, dir.path().string());
  EXPECT_EQ(verb.exit_code, 2);
  EXPECT_NE(verb.err.find("unknown verb 'trian'; did you mean 'train'?"), std::string::npos) << verb.err;
  // Issue 53 item 10: the suggestion in place of CLI11's "A subcommand is required".
  EXPECT_EQ(verb.err.find("A subcommand is required"), std::string::npos) << verb.err;
  auto flag = run_process({engine_binary(), "train", job, "--no-progres"}, dir.path().string());
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("unknown flag '--no-progres'; did you mean '--no-progress'?"), std::string::npos) << flag.err;
  auto nested = run_process({engine_binary(), "launch", "--nproc-per-nod", "2", "train", job}, dir.path().string());
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.err.find("did you mean '--nproc-per-node'?"), std::string::npos) << nested.err;
  // A seed's flag gets the job field that replaces it, under either spelling.
  auto steps = run_process({engine_binary(), "train", job, "--num-steps", "5"}, dir.path().string());
  EXPECT_EQ(steps.exit_code, 2);
  EXPECT_NE(steps.err.find("unknown flag '--num-steps'; the seeds' --num-steps is the job field training.max_steps: "
                           "`train JOB training.max_steps=N`"),
            std::string::npos)
      << steps.err;
  auto workers = run_process({engine_binary(), "train", job, "--num_workers", "4"}, dir.path().string());
  EXPECT_NE(workers.err.find("data.num_workers"), std::string::npos) << workers.err;
  // launch runs train and generate; evaluate is told where it runs.
  auto launched = run_process({engine_binary(), "launch", "evaluate", job}, dir.path().string());
  EXPECT_EQ(launched.exit_code, 2);
  EXPECT_NE(launched.err.find("launch runs train, generate on several processes; 'evaluate' runs in one: "
                              "medsynth-engine evaluate"),
            std::string::npos)
      << launched.err;
  EXPECT_EQ(launched.err.find("A subcommand is required"), std::string::npos) << launched.err;
  // train's help names every task, not the first one alone.
  auto help = run_process({engine_binary(), "train", "--help"}, dir.path().string());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.find("(autoencoder)"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("survival"), std::string::npos) << help.out;
  // Nothing close: CLI11's own message only, no made-up suggestion.
  auto far = run_process({engine_binary(), "completely-different", job}, dir.path().string());
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

// Issue 52 item 4: generate's options are declared once (cli/generate_arguments)
// and `launch ... generate` takes every one of them (it lacked --quality-check,
// --quality-tries and --data); import-maisi's help lists every model the
// engine knows (rflow-mr-brain was missing).
TEST(EngineCli, LaunchGenerateTakesEveryOptionOfGenerateAndHelpListsEveryMaisiModel) {
  test::TempDir dir("cli-help");
  const auto options_of = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), engine_binary());
    argv.push_back("--help");
    const auto r = run_process(argv, dir.path().string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> options;
    std::istringstream lines(r.out);
    for (std::string word; lines >> word;)
      if (word.rfind("--", 0) == 0 && word.size() > 2) options.insert(word.substr(0, word.find_first_of(",=")));
    return options;
  };
  const auto direct = options_of({"generate"}), launched = options_of({"launch", "generate"});
  EXPECT_GE(direct.size(), 9u);
  for (const auto& option : direct) EXPECT_TRUE(launched.count(option)) << "launch generate lacks " << option;
  const auto help = run_process({engine_binary(), "import-maisi", "--help"}, dir.path().string());
  for (const char* model : {"rflow-ct", "ddpm-ct", "rflow-mr", "rflow-mr-brain"})
    EXPECT_NE(help.out.find(model), std::string::npos) << model << " missing from import-maisi --help";
}

// Issue 53 item 3: off a terminal (stderr a pipe here, as in a log or under
// SLURM) training prints a progress line at most every --progress-every
// seconds and at the last step: step, epoch, loss, rate, elapsed, ETA. It was
// silent between validations (97 s in the quick start's piped log).
TEST(EngineCli, TrainingOffATerminalPrintsProgressLinesWithRateAndEta) {
  test::TempDir dir("cli-progress-lines");
  const std::string job = write_job(dir);
  const auto lines_of = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv{engine_binary(), "train", job, "--runs-dir", (dir / "runs").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = run_process(argv, dir.path().string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.err;
  };
  const std::string often = lines_of({"--progress-every", "0.000001"});
  EXPECT_EQ(count(often, " steps/s, elapsed "), 6u) << often;  // one line per step of 6
  EXPECT_NE(often.find("step 1/6 (epoch 1/"), std::string::npos) << often;
  EXPECT_NE(often.find("steps/s, elapsed "), std::string::npos) << often;
  EXPECT_NE(often.find(", ETA "), std::string::npos) << often;
  const std::string by_default = lines_of({});
  // Every 30 s by default: the last step's line, and one more only on a
  // machine that needs over 30 s for these 6 tiny steps.
  EXPECT_GE(count(by_default, " steps/s, elapsed "), 1u) << by_default;
  EXPECT_LE(count(by_default, " steps/s, elapsed "), 2u) << by_default;
  EXPECT_NE(by_default.find("step 6/6 (epoch "), std::string::npos) << by_default;
  EXPECT_GE(count(lines_of({"--no-progress"}), " steps/s, elapsed "), 1u) << "SLURM's command line has --no-progress";
  EXPECT_EQ(count(lines_of({"--progress-every", "0"}), " steps/s, elapsed "), 0u);
}

TEST(EngineCli, TruncatedVolumeAmongGoodOnesExits3NamingIt) {
  test::TempDir dir("cli");
  write_phantoms(dir / "data", 3);
  const auto bad = dir / "data" / "ct_1.nii.gz";
  std::string bytes = test::read_bytes(bad);
  test::write_bytes(bad, bytes.substr(0, bytes.size() / 2));
  auto r = run_process({engine_binary(), "train", write_job(dir), "--data", (dir / "data").string(), "--no-progress"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.err.find("ct_1.nii.gz"), std::string::npos) << r.err;
}

// Issue 54 item 4: a folder giving 3 batches per epoch with the templates'
// gradient_accumulation_steps 4 exited 2 ("cannot fill one optimizer
// step"). It trains: one optimizer step per epoch on the 3 micro-batches.
TEST(EngineCli, AFolderThatCannotFillOneAccumulationTrainsOnThePartialStep) {
  test::TempDir dir("cli-partial");
  write_phantoms(dir / "data", 4);
  auto r = run_process({engine_binary(), "train", write_job(dir), "--data", (dir / "data").string(),
                        "data.val_fraction=0.25", "training.batch_size=1", "training.gradient_accumulation_steps=4",
                        "training.max_steps=0", "training.epochs=2", "--no-progress", "--json"},
                       dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("cannot fill one optimizer step"), std::string::npos) << r.err;
  int progress = 0;
  std::int64_t last_step = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto e = nlohmann::json::parse(line, nullptr, false);
    if (e.is_discarded() || e.value("type", "") != "progress") continue;
    ++progress;
    last_step = e.value("step", std::int64_t{0});
    EXPECT_EQ(e.value("total_steps", std::int64_t{0}), 2) << line;
  }
  EXPECT_EQ(progress, 2) << r.out;
  EXPECT_EQ(last_step, 2);
}

TEST(EngineCli, TrainsOnAFolderOfVolumesAndEvaluatesTheCheckpoint) {
  test::TempDir dir("cli");
  write_phantoms(dir / "data", 4);
  auto r = run_process({engine_binary(), "train", write_job(dir), "--data", (dir / "data").string(), "--no-progress"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto at = r.out.find("run directory: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string run_dir = r.out.substr(at + 15, r.out.find('\n', at) - at - 15);
  EXPECT_TRUE(fs::exists(run_dir + "/job.yaml"));
  EXPECT_TRUE(fs::exists(run_dir + "/logs/rank0.log"));
  const std::string last = run_dir + "/checkpoints/last.safetensors";
  auto e = run_process({engine_binary(), "eval", last, "--data", (dir / "data").string(), "--json"}, dir.path().string());
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto result = nlohmann::json::parse(e.out);
  EXPECT_EQ(result["volumes"], 4);
  EXPECT_GT(result["metrics"]["val/psnr"].get<double>(), 5.0);

  // --per-volume: one row per volume whose SSIMs average to the run's, and for
  // CT the SSIM split into air / soft tissue / bone, whose shares add up to 1.
  auto pv = run_process({engine_binary(), "eval", last, "--data", (dir / "data").string(), "--json", "--per-volume"}, dir.path().string());
  ASSERT_EQ(pv.exit_code, 0) << pv.err;
  auto detail = nlohmann::json::parse(pv.out);
  ASSERT_EQ(detail["per_volume"].size(), 4u) << pv.out;
  double ssim_sum = 0;
  for (const auto& row : detail["per_volume"]) {
    ssim_sum += row["ssim"].get<double>();
    ASSERT_EQ(row["bands"].size(), 3u) << row.dump();
    double share = 0;
    for (const auto& band : row["bands"]) share += band["fraction"].get<double>();
    EXPECT_NEAR(share, 1.0, 1e-9) << row.dump();
    EXPECT_EQ(row["bands"][0]["band"], "air");
  }
  EXPECT_NEAR(ssim_sum / 4, detail["metrics"]["val/ssim"].get<double>(), 1e-6);

  // Issue 38: the run directory stands for its last checkpoint (it printed a
  // JSON parser's error), and --max-volumes is what the count reports (it
  // said 8 of 1).
  auto by_run = run_process({engine_binary(), "eval", run_dir, "--data", (dir / "data").string(), "--max-volumes", "1"},
                            dir.path().string());
  ASSERT_EQ(by_run.exit_code, 0) << by_run.err;
  EXPECT_NE(by_run.out.find("checkpoint: " + last), std::string::npos) << by_run.out;
  EXPECT_NE(by_run.out.find("volumes: 1 of 4"), std::string::npos) << by_run.out;
  auto not_a_run = run_process({engine_binary(), "eval", (dir / "data").string()}, dir.path().string());
  EXPECT_EQ(not_a_run.exit_code, 2) << not_a_run.err;
  EXPECT_NE(not_a_run.err.find("not a run directory (no job.yaml)"), std::string::npos) << not_a_run.err;
}

TEST(EngineCli, CtrlCWritesACheckpointThenExits130) {
  test::TempDir dir("cli");
  auto job = write_job(dir);
  test::ChildProcess child({engine_binary(), "train", job, "training.max_steps=100000", "--runs-dir", (dir / "runs").string(), "--no-progress"},
                          dir.path().string());
  fs::path events;
  // Wait for the first training metric, then interrupt.
  ASSERT_TRUE(test::wait_until(
      [&] {
        if (!fs::exists(dir / "runs")) return false;
        for (const auto& run : fs::directory_iterator(dir / "runs")) {
          events = run.path() / "events.jsonl";
          if (fs::exists(events) && test::read_bytes(events).find("\"train/loss\"") != std::string::npos) return true;
        }
        return false;
      },
      std::chrono::seconds(60)));
  ::kill(child.pid(), SIGINT);
  auto r = child.wait();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const auto last = events.parent_path() / "checkpoints" / "last.safetensors";
  TensorFile f = read_tensor_file(last.string());
  auto progress = nlohmann::json::parse(f.metadata.at("progress"));
  EXPECT_GE(progress["step"].get<int>(), 1);
  std::string text = test::read_bytes(events);
  EXPECT_NE(text.find("\"status\":\"stopped\""), std::string::npos);
}

// Issue 19.6: past `ulimit -f` the kernel's SIGXFSZ killed the engine in the
// middle of a checkpoint (exit 153) and left the temporary file behind.
TEST(EngineCli, AFileSizeLimitIsAnErrorNamingTheCheckpointAndLeavesNoTemporary) {
  test::TempDir dir("cli_fsize");
  auto job = write_job(dir);
  // 100 KiB: room for the logs and events, not for a checkpoint of the tiny model.
  auto r = run_process({"/bin/sh", "-c", "ulimit -f 100 && exec \"$0\" train \"$1\" --no-progress", engine_binary(), job}, dir.path().string());
  EXPECT_EQ(r.exit_code, 4) << r.err;  // storage: a restart would meet the same limit
  std::string run_dir;
  for (const auto& run : fs::directory_iterator(dir / "runs")) run_dir = run.path().string();
  ASSERT_FALSE(run_dir.empty());
  EXPECT_NE(r.err.find("cannot write " + run_dir + "/checkpoints/last.safetensors: File too large"), std::string::npos) << r.err;
  for (const auto& f : fs::directory_iterator(run_dir + "/checkpoints"))
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos) << "left behind: " << f.path();
  std::ifstream events(run_dir + "/events.jsonl");
  for (std::string line; std::getline(events, line);) EXPECT_TRUE(nlohmann::json::accept(line)) << "not a whole event: " << line;
}

// Issue 19.6 on a real full disk (root: a tmpfs sized to hold the first
// checkpoint but not a second beside it). Before, only a file-size limit
// stood in for it.
TEST(EngineCli, ARealFullDiskIsAStorageErrorAndThePreviousCheckpointStillLoads) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs (CI runs as root)";
  test::TempDir dir("cli_enospc");
  auto job = write_job(dir);
  auto sized = run_process({engine_binary(), "train", job, "--no-progress", "--runs-dir", (dir / "sizing").string()}, dir.path().string());
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  std::uintmax_t checkpoint_bytes = 0;
  for (const auto& run : fs::directory_iterator(dir / "sizing")) checkpoint_bytes = fs::file_size(run.path() / "checkpoints" / "last.safetensors");
  ASSERT_GT(checkpoint_bytes, 100u * 1024u);
  const fs::path disk = dir / "disk";
  fs::create_directories(disk);
  // Room for one full checkpoint: the step-0 one (no optimizer moments yet)
  // plus logs fits; a second written beside it does not.
  auto mounted = run_process({"/bin/sh", "-c", "mount -t tmpfs -o size=" + std::to_string(checkpoint_bytes) + " medsynth-full \"$0\" 2>&1", disk.string()},
                             dir.path().string());
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs here (exit " << mounted.exit_code << "): " << mounted.out;
  struct Unmount {
    std::string path;
    ~Unmount() { run_process({"/bin/sh", "-c", "umount -l \"$0\"", path}, "/"); }
  } unmount{disk.string()};

  auto r = run_process({engine_binary(), "train", job, "--no-progress", "--runs-dir", (disk / "runs").string()}, dir.path().string());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  std::string run_dir;
  for (const auto& run : fs::directory_iterator(disk / "runs")) run_dir = run.path().string();
  ASSERT_FALSE(run_dir.empty());
  EXPECT_NE(r.err.find("cannot write " + run_dir + "/"), std::string::npos) << "the error names the file: " << r.err;
  const TensorFile previous = read_tensor_file(run_dir + "/checkpoints/last.safetensors");
  EXPECT_NE(previous.metadata.at("progress").find("\"step\":0"), std::string::npos) << "the step-0 checkpoint is still the last one";
  for (const auto& f : fs::directory_iterator(run_dir + "/checkpoints"))
    EXPECT_EQ(f.path().filename().string().find(".tmp-"), std::string::npos) << "left behind: " << f.path();
  std::ifstream events(run_dir + "/events.jsonl");
  for (std::string line; std::getline(events, line);) EXPECT_TRUE(nlohmann::json::accept(line)) << "not a whole event: " << line;
}

TEST(EngineCli, ResumeContinuesTheRunDirectory) {
  test::TempDir dir("cli");
  auto job = write_job(dir);
  const std::string run_dir = train_tiny_run(dir, job, 3);
  ASSERT_FALSE(run_dir.empty());
  // A longer schedule is a different job; resuming the same job must work and continue at step 3.
  auto again = run_process({engine_binary(), "train", job, "training.max_steps=3", "--resume", run_dir, "--no-progress"}, dir.path().string());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(test::read_bytes(run_dir + "/logs/rank0.log").find("resumed from"), std::string::npos);
  auto wrong = run_process({engine_binary(), "train", job, "model.autoencoder.latent_channels=8", "--resume", run_dir, "--no-progress"},
                           dir.path().string());
  EXPECT_EQ(wrong.exit_code, 2) << wrong.err;
  EXPECT_NE(wrong.err.find("another model"), std::string::npos) << wrong.err;
}

// Issue 19.8: a weights-only file given to --resume was refused as "not a
// medsynth checkpoint" with no way forward. It is now named as weights only,
// and --init-weights starts a new run from it.
TEST(EngineCli, AWeightsOnlyFileCannotResumeButStartsANewRunWithInitWeights) {
  test::TempDir dir("cli");
  auto job = write_job(dir);
  auto first = run_process({engine_binary(), "train", job, "training.max_steps=2", "--no-progress"}, dir.path().string());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string source_run;
  for (const auto& run : fs::directory_iterator(dir / "runs")) source_run = run.path().string();
  const TensorFile checkpoint = read_tensor_file(source_run + "/checkpoints/last.safetensors");
  TensorFile weights;  // what another tool exports: the model's tensors, nothing else
  for (const auto& [name, t] : checkpoint.tensors)
    if (name.rfind("model.", 0) == 0) weights.tensors[name] = t;
  ASSERT_FALSE(weights.tensors.empty());
  const std::string weights_file = (dir / "weights.safetensors").string();
  write_tensor_file(weights_file, weights);

  auto resume = run_process({engine_binary(), "train", job, "--resume", weights_file, "--no-progress"}, dir.path().string());
  EXPECT_EQ(resume.exit_code, 2) << resume.err;
  EXPECT_NE(resume.err.find("holds weights only"), std::string::npos) << resume.err;
  EXPECT_NE(resume.err.find("--init-weights " + weights_file), std::string::npos) << resume.err;

  auto both = run_process({engine_binary(), "train", job, "--resume", source_run, "--init-weights", weights_file, "--no-progress"},
                          dir.path().string());
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("exclude each other"), std::string::npos) << both.err;

  // A learning rate so small that one step leaves the weights where they started.
  const fs::path runs = dir / "init-runs";
  auto init = run_process({engine_binary(), "train", job, "training.max_steps=1", "training.lr=1e-12", "training.warmup_steps=0",
                           "--init-weights", weights_file, "--runs-dir", runs.string(), "--no-progress"},
                          dir.path().string());
  ASSERT_EQ(init.exit_code, 0) << init.err;
  std::string init_run;
  for (const auto& run : fs::directory_iterator(runs)) init_run = run.path().string();
  EXPECT_NE(test::read_bytes(init_run + "/logs/rank0.log").find("starting from the weights of " + weights_file), std::string::npos);
  const TensorFile started = read_tensor_file(init_run + "/checkpoints/last.safetensors");
  EXPECT_NE(started.metadata.at("progress").find("\"step\":1"), std::string::npos) << "a new run counts from step 0";
  double worst = 0;
  for (const auto& [name, t] : weights.tensors) {
    if (!t.is_floating_point()) continue;
    worst = std::max(worst, (started.tensors.at(name) - t).abs().max().item<double>() / (t.abs().max().item<double>() + 1e-12));
  }
  EXPECT_LT(worst, 1e-6) << "the new run starts from the file's weights (a fresh initialisation differs by O(1))";
}

// Scenario 13 without a SLURM installation: a requeued job starts again with
// the same command line and SLURM_RESTART_COUNT > 0; train must continue the
// newest run of the job instead of starting a new one.
TEST(EngineCli, ASlurmRestartCountResumesTheNewestRunOfTheJob) {
  test::TempDir dir("cli");
  auto job = write_job(dir);
  const std::string run_dir = train_tiny_run(dir, job, 3);
  ASSERT_FALSE(run_dir.empty());
  auto requeued = run_process({"/usr/bin/env", "SLURM_JOB_ID=4242", "SLURM_RESTART_COUNT=1", engine_binary(), "train", job,
                               "training.max_steps=3", "--no-progress"},
                              dir.path().string());
  EXPECT_EQ(requeued.exit_code, 0) << requeued.err;
  EXPECT_NE(requeued.err.find("SLURM_RESTART_COUNT=1: resuming the newest run of this job"), std::string::npos) << requeued.err;
  EXPECT_NE(requeued.err.find("run directory: " + run_dir), std::string::npos) << requeued.err;
  int runs = 0;
  for ([[maybe_unused]] const auto& run : fs::directory_iterator(dir / "runs")) ++runs;
  EXPECT_EQ(runs, 1) << "no second run directory";
  EXPECT_NE(test::read_bytes(run_dir + "/logs/rank0.log").find("resumed from"), std::string::npos);
}

// Issue 50 item 6: two writers of one run. A second `train --resume RUN`
// (or `generate RUN`) of a run that is training was accepted: both wrote
// events.jsonl and last.safetensors. Now the second is refused naming the
// first one's pid and host, and a resume after a kill takes the dead
// process's lock over with a note.
TEST(EngineCli, ASecondTrainOrGenerateOfARunThatIsTrainingIsRefusedNamingItsPidAndHost) {
  test::TempDir dir("cli_lock");
  const std::string job = write_job(dir);
  test::ChildProcess first({engine_binary(), "train", job, "training.max_steps=100000", "--no-progress"},
                           dir.path().string());
  std::string run;
  ASSERT_TRUE(test::wait_until(
      [&] {
        run = only_run(dir);
        return !run.empty() && fs::exists(run + "/events.jsonl") &&
               test::read_bytes(run + "/events.jsonl").find("\"train/loss\"") != std::string::npos;
      },
      std::chrono::seconds(60)));
  const std::string holder = "pid " + std::to_string(first.pid()) + " on host " + host_name();
  const auto resume =
      run_process({engine_binary(), "train", job, "--resume", run, "--no-progress"}, dir.path().string());
  EXPECT_EQ(resume.exit_code, 2) << resume.err;
  EXPECT_NE(resume.err.find(holder), std::string::npos) << resume.err;
  const auto generate = run_process({engine_binary(), "generate", run}, dir.path().string());
  EXPECT_EQ(generate.exit_code, 2) << generate.err;
  EXPECT_NE(generate.err.find(holder), std::string::npos) << generate.err;
  ::kill(first.pid(), SIGINT);
  const auto ended = first.wait();
  EXPECT_EQ(ended.exit_code, 130) << ended.err;
  EXPECT_EQ(count(test::read_bytes(run + "/events.jsonl"), "\"run_started\""), 1u) << "a second writer started";
  EXPECT_FALSE(fs::exists(run_lock_record_file(run))) << "the lock's record outlived its holder";
}

TEST(EngineCli, AResumeAfterAKillTakesTheDeadProcessesLockOverWithANote) {
  test::TempDir dir("cli_lock");
  const std::string job = write_job(dir);
  // Rank 0 SIGKILLs itself after step 4 (a checkpoint at step 3 is on disk): its lock.json stays.
  const auto killed =
      run_process({engine_binary(), "train", job, "--test-kill-self", "0:4", "--no-progress"}, dir.path().string());
  ASSERT_EQ(killed.signal, SIGKILL) << killed.err;
  const std::string run = only_run(dir);
  ASSERT_TRUE(fs::exists(run_lock_record_file(run)));
  const std::string dead = test::read_bytes(run_lock_record_file(run));
  const auto resumed =
      run_process({engine_binary(), "train", job, "--resume", run, "--no-progress"}, dir.path().string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("taking over the lock of " + run), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("on host " + host_name()), std::string::npos) << resumed.err;
  EXPECT_FALSE(fs::exists(run_lock_record_file(run)));
}

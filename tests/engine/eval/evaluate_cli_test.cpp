// `medsynth-engine evaluate` as users run it: real NIfTI files (phantoms
// written through ITK), real TorchScript feature networks (made here with
// random weights: the math is checked against MONAI in
// distribution_metrics_test), real processes and exit codes.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/script.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "data/ct_phantom.hpp"
#include "data/volume_tensor.hpp"
#include "dist/listen_socket.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/tensorboard_reader.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;
using nlohmann::json;

namespace {

// The evaluation tests' phantom: 48^3 at 6 mm.
Volume phantom(int seed) {
  PhantomOptions o;
  o.size = {48, 48, 48};
  o.spacing = {6, 6, 6};
  return make_ct_phantom(static_cast<std::uint64_t>(seed), o);
}

// Phantoms of `seeds` into `folder`, shifted by `offset_hu`.
void write_phantoms(const fs::path& folder, std::initializer_list<int> seeds, float offset_hu = 0.0f) {
  fs::create_directories(folder);
  for (int seed : seeds) {
    Volume v = phantom(seed);
    for (float& x : v.voxels) x += offset_hu;
    write_volume(v, (folder / ("ct_" + std::to_string(seed) + ".nii.gz")).string());
  }
}

// Phantoms with label maps beside them, as generate --label writes them
// (ct_S_image.nii.gz + ct_S_label.nii.gz): label 1 where the phantom is
// soft tissue (-100..100 HU), 2 where it is bone (> 300 HU). `shift_soft`
// moves the soft tissue of the image (not the label) by that many HU.
void write_labelled_phantoms(const fs::path& folder, std::initializer_list<int> seeds, float shift_soft = 0.0f) {
  fs::create_directories(folder);
  for (int seed : seeds) {
    Volume v = phantom(seed);
    Volume label = v;
    for (std::size_t i = 0; i < v.voxels.size(); ++i) {
      const float hu = v.voxels[i];
      label.voxels[i] = hu > -100.0f && hu < 100.0f ? 1.0f : hu > 300.0f ? 2.0f : 0.0f;
      if (label.voxels[i] == 1.0f) v.voxels[i] += shift_soft;
    }
    const std::string stem = "ct_" + std::to_string(seed);
    write_volume(v, (folder / (stem + "_image.nii.gz")).string());
    write_volume(label, (folder / (stem + "_label.nii.gz")).string());
  }
}

// A random-weight feature network saved as TorchScript: 3D ([N,1,D,H,W]) or
// 2D ([N,3,H,W]); outputs keep spatial axes, which evaluate averages away.
std::string write_feature_network(const fs::path& path, bool three_d) {
  torch::jit::Module m("FeatureNet");
  at::manual_seed(7);
  m.register_parameter("w", three_d ? at::randn({6, 1, 3, 3, 3}) : at::randn({6, 3, 3, 3}), false);
  m.define(three_d ? R"(
def forward(self, x):
    return torch.relu(torch.conv3d(x, self.w, None, [2, 2, 2]))
)"
                   : R"(
def forward(self, x):
    return torch.relu(torch.conv2d(x, self.w, None, [2, 2]))
)");
  m.save(path.string());
  return path.string();
}

// metric -> value (null when not computed) from evaluation.json; a missing
// metric reads as a string naming the file, which fails any number check.
struct Metrics {
  std::map<std::string, json> values;
  std::string file;
  json at(const std::string& name) const {
    auto it = values.find(name);
    return it != values.end() ? it->second : json("no metric '" + name + "' in " + file);
  }
};

Metrics metrics_of(const fs::path& out) {
  std::ifstream in(out / "evaluation.json");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  Metrics m{{}, text};
  const json document = json::parse(text);  // kept: a range-for over a temporary's member dangles
  for (const auto& row : document.at("metrics")) m.values[row.at("metric").get<std::string>()] = row.at("value");
  return m;
}

double number(const json& j) { return j.is_number() ? j.get<double>() : (ADD_FAILURE() << j.dump(), std::nan("")); }

}  // namespace

TEST(EvaluateCli, PrintsTheTableAndWritesJsonAndEventsWithFid3d) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "generated", {1, 2, 3, 4});
  write_phantoms(dir / "reference", {11, 12, 13, 14, 15});
  const std::string net = write_feature_network(dir / "net3d.pt", true);
  const fs::path out = dir / "out";
  const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "reference").string(),
                                    "--features", net, "--trust-torchscript", "--feature-mode", "3d", "--out", out.string()},
                                   dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --trust-torchscript: if " + net + " is TorchScript it will be loaded, and a TorchScript file is a program"),
            std::string::npos)
      << r.err;
  for (const char* row : {"hu_w1", "outside_valid_hu_generated", "ms_ssim_diversity", "ms_ssim_fidelity", "mmd", "fid_3d"})
    EXPECT_NE(r.out.find(std::string("\n") + row + " "), std::string::npos) << row << " missing from:\n" << r.out;
  EXPECT_NE(r.out.find("4 generated vs 5 reference volumes on a 48x48x48 grid"), std::string::npos) << r.out;
  const auto m = metrics_of(out);
  for (const char* name : {"hu_w1", "ms_ssim_diversity", "ms_ssim_fidelity", "mmd", "fid_3d"}) {
    EXPECT_TRUE(std::isfinite(number(m.at(name)))) << name;
  }
  EXPECT_GT(number(m.at("fid_3d")), 0.0);
  // Issue 53 item 10: the same numbers reach TensorBoard (OUT/tb), read back
  // with the record format's own CRCs.
  std::map<std::string, double> scalars;
  for (const auto& entry : fs::directory_iterator(out / "tb"))
    for (const auto& s : read_tensorboard_scalars(entry.path())) scalars[s.tag] = s.value;
  for (const char* name : {"hu_w1", "mmd", "fid_3d"}) {
    ASSERT_TRUE(scalars.count(std::string("eval/") + name)) << name << " is not in " << out / "tb";
    EXPECT_NEAR(scalars.at(std::string("eval/") + name), number(m.at(name)),
                1e-5 * std::max(1.0, std::abs(number(m.at(name)))))
        << name;
  }
  EXPECT_GT(number(m.at("ms_ssim_fidelity")), 0.0);
  EXPECT_LE(number(m.at("ms_ssim_fidelity")), 1.0);
  int metric_events = 0;
  std::ifstream events(out / "events.jsonl");
  for (std::string line; std::getline(events, line);) {
    const auto e = json::parse(line);
    if (e.at("type") == "metric") {
      ++metric_events;
      EXPECT_EQ(e.at("name").get<std::string>().rfind("eval/", 0), 0u) << line;
    }
  }
  EXPECT_GE(metric_events, 9);
}

// A TorchScript file is a program: given as --features without
// --trust-torchscript it is refused before it is loaded (issue 37: a 1.4 KB
// "weights" file wrote files of its choosing when loaded and exited 0), with
// an error that says why and how to load it anyway.
TEST(EvaluateCli, TorchScriptFeaturesAreRefusedUnlessTrusted) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "generated", {1, 2});
  write_phantoms(dir / "reference", {3, 4});
  const std::string net = write_feature_network(dir / "net3d.pt", true);
  const fs::path out = dir / "out";
  const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "reference").string(),
                                    "--features", net, "--feature-mode", "3d", "--out", out.string()},
                                   dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("net3d.pt: feature network: not weights the restricted reader accepts"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("medsynth loads one only with --trust-torchscript"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out / "evaluation.json")) << "no report from a refused feature network";
}

// The numbers mean what they say: a set against itself has FID 0 and no HU
// distance; the same set shifted by 100 HU is 100 HU away (Wasserstein-1),
// with an unchanged out-of-range share and a larger FID than 0.
TEST(EvaluateCli, ASetAgainstItselfIsAtZeroAndAShiftOf100HuReads100) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "reference", {11, 12, 13});
  write_phantoms(dir / "shifted", {11, 12, 13}, 100.0f);
  const std::string net = write_feature_network(dir / "net2d.pt", false);
  auto evaluate = [&](const std::string& generated, const std::string& out) {
    const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / generated).string(), "--reference", (dir / "reference").string(),
                                      "--features", net, "--trust-torchscript", "--every-k-slices", "4", "--out", (dir / out).string()},
                                     dir.path().string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Issue 38: progress lines on stderr as the work moves, not only the end;
    // a phase's last line says how long it took (issue 53 item 6).
    for (const char* line :
         {"evaluate: reading generated volumes 1/3\n", "evaluate: reading generated volumes 3/3 (in ",
          "evaluate: reading reference volumes 3/3 (in ", "evaluate: metrics 1/3\n", "evaluate: metrics 3/3 (in "})
      EXPECT_NE(r.err.find(line), std::string::npos) << line << " missing from:\n" << r.err;
    return metrics_of(dir / out);
  };
  const auto same = evaluate("reference", "same");
  EXPECT_NEAR(number(same.at("hu_w1")), 0.0, 1e-9);
  for (const char* plane : {"fid_2.5d_xy", "fid_2.5d_yz", "fid_2.5d_zx", "fid_2.5d"}) EXPECT_NEAR(number(same.at(plane)), 0.0, 1e-6) << plane;
  EXPECT_NEAR(number(same.at("ms_ssim_fidelity")), number(same.at("ms_ssim_diversity_reference")) * 2.0 / 3.0 + 1.0 / 3.0, 1e-9)
      << "with itself in the set, fidelity averages the 3 self-pairs (1.0) and the 6 ordered cross pairs";
  const auto shifted = evaluate("shifted", "shifted");
  EXPECT_NEAR(number(shifted.at("hu_w1")), 100.0, 2.0);
  EXPECT_GT(number(shifted.at("hu_mean_generated")) - number(shifted.at("hu_mean_reference")), 99.0);
  EXPECT_GT(number(shifted.at("fid_2.5d")), 1e-6);
}

// NV-Generate's 2.5D protocol with RadImageNet's ResNet-50 given as its
// released weights (a narrow stand-in with the same layout): every plane's
// FID is computed, a set against itself is at 0, other phantoms are not (a
// uniform HU shift would be: the protocol min-max scales each plane), and
// the report names the file.
TEST(EvaluateCli, RadImageNetWeightsComputeThe25dFid) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "reference", {11, 12, 13});
  write_phantoms(dir / "other", {21, 22, 23});
  const std::string net = std::string(MEDSYNTH_EVAL_TEST_DATA) + "/radimagenet_resnet50_narrow.pth";
  auto evaluate = [&](const std::string& generated, const std::string& out) {
    const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / generated).string(), "--reference", (dir / "reference").string(),
                                      "--features", net, "--feature-mode", "2.5d", "--every-k-slices", "4", "--out", (dir / out).string()},
                                     dir.path().string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("radimagenet_resnet50_narrow.pth"), std::string::npos) << r.out;
    return metrics_of(dir / out);
  };
  const auto same = evaluate("reference", "same");
  const double other = number(evaluate("other", "other").at("fid_2.5d"));
  EXPECT_GT(other, 0.0);
  // 256 features from ~30 slices: the covariances are singular, and the
  // matrix square root leaves float64 noise of ~1e-6 of the distances.
  for (const char* plane : {"fid_2.5d_xy", "fid_2.5d_yz", "fid_2.5d_zx", "fid_2.5d"})
    EXPECT_LT(std::abs(number(same.at(plane))), 1e-4 * other) << plane << " of a set against itself; other phantoms: " << other;
}

TEST(EvaluateCli, ABadFeatureNetworkOrAnEmptyReferenceIsAClearError) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "generated", {1, 2});
  write_phantoms(dir / "reference", {3, 4});
  test::write_bytes((dir / "not-a-net.pt").string(), "hello");
  const auto bad = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "reference").string(),
                                      "--features", (dir / "not-a-net.pt").string()},
                                     dir.path().string());
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("not-a-net.pt: feature network: not weights the restricted reader accepts"), std::string::npos) << bad.err;
  const auto trusted = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference",
                                          (dir / "reference").string(), "--features", (dir / "not-a-net.pt").string(), "--trust-torchscript"},
                                         dir.path().string());
  EXPECT_EQ(trusted.exit_code, 3) << trusted.err;
  EXPECT_NE(trusted.err.find("not-a-net.pt: feature network: neither torch.save weights"), std::string::npos) << trusted.err;
  EXPECT_NE(trusted.err.find("nor TorchScript"), std::string::npos) << trusted.err;
  fs::create_directories(dir / "empty");
  const auto empty = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "empty").string()},
                                       dir.path().string());
  EXPECT_EQ(empty.exit_code, 3) << empty.err;
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
}

// The audit flags a planted exact copy of a training case, by MS-SSIM, and
// nothing else: untouched samples (other phantoms) sit near ratio 1, as far
// from the training set as its cases are from each other.
TEST(EvaluateCli, APlantedCopyOfATrainingCaseIsFlaggedAndNothingElse) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "train", {11, 12, 13, 14, 15});
  write_phantoms(dir / "generated", {21, 22, 23});
  fs::copy_file(dir / "train" / "ct_13.nii.gz", dir / "generated" / "planted.nii.gz");
  const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "train").string(),
                                    "--train", (dir / "train").string(), "--out", (dir / "out").string()},
                                   dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("MEMORIZATION: " + (dir / "generated" / "planted.nii.gz").string() + " is a near copy of training case " +
                       (dir / "train" / "ct_13.nii.gz").string()),
            std::string::npos)
      << r.out;
  std::ifstream in(dir / "out" / "evaluation.json");
  const json report = json::parse(in);
  int flagged = 0;
  for (const auto& c : report.at("memorization").at("cases")) {
    const bool planted = c.at("generated").get<std::string>().find("planted") != std::string::npos;
    EXPECT_EQ(c.at("flagged").get<bool>(), planted) << c.dump();
    if (!planted) EXPECT_GT(c.at("ms_ssim_ratio").get<double>(), 0.4) << "an untouched sample is far from the threshold (0.2): " << c.dump();
    flagged += c.at("flagged").get<bool>();
  }
  EXPECT_EQ(flagged, 1);
  int events = 0;
  std::ifstream stream(dir / "out" / "events.jsonl");
  for (std::string line; std::getline(stream, line);)
    if (json::parse(line).at("type") == "memorization") {
      ++events;
      EXPECT_NE(line.find("planted.nii.gz"), std::string::npos) << line;
    }
  EXPECT_EQ(events, 1);
}

// Issue 20.1, "over ranks": two processes under a torchrun environment split
// the pairwise MS-SSIM, the audit's distances and the feature rows, and rank 0
// writes a report with exactly the numbers one process computes.
TEST(EvaluateCli, TwoRanksComputeTheSameReportAsOneProcess) {
  test::TempDir dir("evaluate");
  write_phantoms(dir / "train", {11, 12, 13, 14});
  write_phantoms(dir / "generated", {21, 22, 23});
  fs::copy_file(dir / "train" / "ct_12.nii.gz", dir / "generated" / "planted.nii.gz");
  const std::string net = write_feature_network(dir / "net3d.pt", true);
  auto argv = [&](const std::string& out) {
    return std::vector<std::string>{test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "train").string(),
                                    "--train", (dir / "train").string(), "--features", net, "--trust-torchscript", "--feature-mode", "3d", "--out", (dir / out).string()};
  };
  // One thread in every process: CPU reductions split by thread count, which
  // would differ in the last digits for reasons that have nothing to do with ranks.
  std::vector<std::string> one_process{"/usr/bin/env", "OMP_NUM_THREADS=1"};
  for (const auto& a : argv("single")) one_process.push_back(a);
  const auto single = test::run_process(one_process, dir.path().string());
  ASSERT_EQ(single.exit_code, 0) << single.err;

  std::string port;
  {
    const ListenSocket probe("127.0.0.1", 0);  // a free port, released at once
    port = std::to_string(probe.port());
  }
  std::vector<std::unique_ptr<test::ChildProcess>> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> command{"/usr/bin/env", "RANK=" + std::to_string(rank), "LOCAL_RANK=" + std::to_string(rank), "WORLD_SIZE=2",
                                     "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "OMP_NUM_THREADS=1"};
    for (const auto& a : argv("dual")) command.push_back(a);
    ranks.push_back(std::make_unique<test::ChildProcess>(command, dir.path().string()));
  }
  for (auto& r : ranks) {
    const auto result = r->wait();
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  const auto one = metrics_of(dir / "single"), two = metrics_of(dir / "dual");
  ASSERT_EQ(one.values.size(), two.values.size());
  for (const auto& [name, value] : one.values) EXPECT_EQ(value, two.at(name)) << name;
  std::ifstream a(dir / "single" / "evaluation.json"), b(dir / "dual" / "evaluation.json");
  EXPECT_EQ(json::parse(a).at("memorization").at("cases"), json::parse(b).at("memorization").at("cases"));
  int artifacts = 0;  // only rank 0 wrote the stream
  std::ifstream stream(dir / "dual" / "events.jsonl");
  for (std::string line; std::getline(stream, line);) artifacts += json::parse(line).at("type") == "artifact";
  EXPECT_EQ(artifacts, 1);
}

// MAISI's per-organ check: a generated case whose soft tissue (label 1) sits
// 400 HU above every reference case's is out of range for label 1, and only
// it; label maps beside the images are not judged as volumes themselves.
TEST(EvaluateCli, PerLabelHuRangesFlagTheCaseWhoseTissueIsOffAndOnlyIt) {
  test::TempDir dir("evaluate-labels");
  write_labelled_phantoms(dir / "generated", {11, 12, 13});
  write_labelled_phantoms(dir / "shifted", {14}, 400.0f);
  for (const auto& e : fs::directory_iterator(dir / "shifted")) fs::copy_file(e.path(), dir / "generated" / e.path().filename());
  write_labelled_phantoms(dir / "reference", {11, 12, 13, 14});
  const fs::path out = dir / "out";
  const auto r = test::run_process({test::engine_binary(), "evaluate", (dir / "generated").string(), "--reference", (dir / "reference").string(),
                                    "--out", out.string()},
                                   dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 generated vs 4 reference volumes"), std::string::npos) << r.out;
  const auto m = metrics_of(out);
  EXPECT_DOUBLE_EQ(number(m.at("hu_label_1_outside")), 0.25) << r.out;
  EXPECT_DOUBLE_EQ(number(m.at("hu_label_2_outside")), 0.0) << r.out;
}

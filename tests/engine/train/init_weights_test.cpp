// `train --init-weights FILE.pth`: a MedicalNet-shaped state dict (the
// fixture of weights/data/make_medicalnet_fixture.py: {'state_dict': ...}
// with `module.` prefixes, legacy torch.save format, a conv_seg head) loaded
// into our survival ResNet: the backbone takes the file's values, our head
// keeps its own, the report names what went where and why; a shape that
// differs, a file sharing nothing and a hostile pickle are refused. Last, a
// survival run through the real binary starts from the file and reports it.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "models/resnet3d.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "train/init_weights.hpp"
#include "weights/name_prefixes.hpp"
#include "weights/torch_archive.hpp"
#include "weights/torch_file_writer.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

const fs::path k_data = MEDSYNTH_TORCH_SAVE_TEST_DATA;
const std::string k_medicalnet = (k_data / "medicalnet_resnet10_tiny.pth").string();

// The fixture's widths; conv1 strides as MedicalNet's does.
ResNet3dOptions tiny_resnet(int depth = 10) {
  ResNet3dOptions o;
  o.depth = depth;
  o.block_inplanes = {2, 4, 8, 16};
  o.conv1_t_stride = 2;
  return o;
}

std::map<std::string, at::Tensor> tensors_of(torch::nn::Module& net) {
  std::map<std::string, at::Tensor> out;
  for (const auto& p : net.named_parameters()) out[p.key()] = p.value().detach().clone();
  for (const auto& b : net.named_buffers()) out[b.key()] = b.value().detach().clone();
  return out;
}

// What the generator wrote into entry `index` of its state dict (in file order).
at::Tensor generated(at::IntArrayRef shape, int index) {
  return ((at::arange(c10::multiply_integers(shape), at::kDouble) + 1000 * index) / 1024).reshape(shape).to(at::kFloat);
}

const TensorGroup* group_with(const std::vector<TensorGroup>& groups, const std::string& name) {
  for (const auto& g : groups)
    if (std::find(g.names.begin(), g.names.end(), name) != g.names.end()) return &g;
  return nullptr;
}

TEST(InitWeights, MedicalNetWeightsLoadIntoTheBackboneAndLeaveOurHead) {
  ResNet3d net(tiny_resnet());
  const auto before = tensors_of(*net);
  const auto file = state_dict_of(read_torch_file(k_medicalnet), k_medicalnet);
  ASSERT_TRUE(file.count("conv1.weight")) << "the module. prefix and the state_dict wrapper are undone";

  const InitWeightsReport report = load_init_weights({{"resnet", net.ptr()}}, k_medicalnet);

  // Every tensor the network shares with the file now holds the file's values:
  // 72 = conv1, bn1 and four one-block layers with their shortcuts.
  const auto after = tensors_of(*net);
  int shared = 0;
  for (const auto& [name, t] : after) {
    if (!file.count(name)) continue;
    EXPECT_TRUE(at::equal(t, file.at(name))) << name;
    ++shared;
  }
  EXPECT_EQ(shared, 72);
  // ... which are the generator's, by its formula (entries 0 and 60 of its dict).
  EXPECT_TRUE(at::equal(after.at("conv1.weight"), generated({2, 1, 7, 7, 7}, 0)));
  EXPECT_TRUE(at::equal(after.at("layer4.0.conv2.weight"), generated({16, 16, 3, 3, 3}, 60)));
  EXPECT_EQ(after.at("layer2.0.downsample.1.num_batches_tracked").item<int64_t>(), 7);
  EXPECT_FALSE(at::equal(after.at("conv1.weight"), before.at("conv1.weight")));
  // Our head keeps its initial values.
  EXPECT_TRUE(at::equal(after.at("fc.weight"), before.at("fc.weight")));
  EXPECT_TRUE(at::equal(after.at("fc.bias"), before.at("fc.bias")));

  EXPECT_EQ(report.format, "torch.save");
  EXPECT_EQ(report.load.layout, "MedicalNet 3D ResNet");
  EXPECT_EQ(report.load.loaded.names.size(), 72u);
  EXPECT_EQ(report.load.loaded.prefixes,
            (std::vector<std::string>{"bn1.*", "conv1.weight", "layer1.*", "layer2.*", "layer3.*", "layer4.*"}));
  ASSERT_EQ(report.load.left_initial.size(), 1u);
  EXPECT_EQ(report.load.left_initial[0].names, (std::vector<std::string>{"fc.bias", "fc.weight"}));
  EXPECT_NE(report.load.left_initial[0].why.find("head"), std::string::npos) << report.load.left_initial[0].why;
  ASSERT_EQ(report.load.ignored.size(), 1u);
  EXPECT_EQ(report.load.ignored[0].names.size(), 14u);
  EXPECT_EQ(report.load.ignored[0].prefixes, (std::vector<std::string>{"conv_seg.*"}));
  EXPECT_NE(report.load.ignored[0].why.find("MedicalNet's segmentation head"), std::string::npos);

  const std::string line = describe(report);
  for (const char* part : {"loaded 72 tensors into resnet", "layer4.*", "left at their initial values: fc.* (2)",
                           "ignored in the file: conv_seg.* (14): MedicalNet's segmentation head"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " not in: " << line;
}

TEST(InitWeights, TensorsTheFileLacksKeepTheirInitialValuesAndAreNamed) {
  ResNet3d net(tiny_resnet(18));  // two blocks per layer: the second of each is not in a ResNet-10 file
  const auto before = tensors_of(*net);
  const InitWeightsReport report = load_init_weights({{"resnet", net.ptr()}}, k_medicalnet);
  const auto after = tensors_of(*net);
  EXPECT_TRUE(at::equal(after.at("layer3.1.conv2.weight"), before.at("layer3.1.conv2.weight")));
  EXPECT_TRUE(at::equal(after.at("layer3.0.conv2.weight"), generated({8, 8, 3, 3, 3}, 42)));
  const TensorGroup* absent = group_with(report.load.left_initial, "layer3.1.conv2.weight");
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(absent->why, "absent from the file");
  EXPECT_EQ(absent->prefixes, (std::vector<std::string>{"layer1.1.*", "layer2.1.*", "layer3.1.*", "layer4.1.*"}));
  const TensorGroup* head = group_with(report.load.left_initial, "fc.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_NE(head, absent) << "the head is named as such, not as merely absent";
}

TEST(InitWeights, AShapeThatDiffersIsAnErrorNamingTheFileTheTensorAndBothShapesAndLoadsNothing) {
  ResNet3dOptions o = tiny_resnet();
  o.n_input_channels = 2;  // conv1 [2, 2, 7, 7, 7]; MedicalNet's takes one channel
  ResNet3d net(o);
  const auto before = tensors_of(*net);
  try {
    load_init_weights({{"resnet", net.ptr()}}, k_medicalnet);
    FAIL() << "a mis-shaped conv1.weight was accepted";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), k_medicalnet);
    const std::string why = e.reason();
    EXPECT_NE(why.find("conv1.weight is [2, 1, 7, 7, 7] in the file, [2, 2, 7, 7, 7] in the network"),
              std::string::npos)
        << why;
    EXPECT_NE(std::string(e.what()).find(k_medicalnet), std::string::npos) << e.what();
  }
  EXPECT_TRUE(at::equal(tensors_of(*net).at("layer1.0.conv1.weight"), before.at("layer1.0.conv1.weight")))
      << "nothing is loaded when one tensor does not fit";
}

TEST(InitWeights, AFileSharingNoTensorNameIsRefused) {
  ResNet3d net(tiny_resnet());
  const std::string other = (k_data / "plain_state_dict.pt").string();  // Sequential names: 0.weight, 1.bias
  try {
    load_init_weights({{"resnet", net.ptr()}}, other);
    FAIL() << "a file of another network loaded nothing, silently";
  } catch (const DataError& e) {
    EXPECT_NE(e.reason().find("shares no tensor name with the network"), std::string::npos) << e.reason();
  }
}

// Issue 50 item 4: NaN or infinite weights were accepted by --init-weights
// (and the perceptual and feature networks, which read through the same
// state_dict_of): training rolled back five times and ended "training
// diverged" naming no file. Refused as the file is read, naming the file and
// the tensor, for a torch.save file and for our own safetensors.
TEST(InitWeights, NonFiniteWeightsAreRefusedNamingTheFileAndTheTensor) {
  test::TempDir dir("init-weights-nan");
  ResNet3d net(tiny_resnet());
  auto weights = tensors_of(*net);
  weights.at("conv1.weight").view(-1)[3] = std::numeric_limits<float>::quiet_NaN();
  const std::string pt = (dir / "nan.pth").string();
  {
    c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
    for (const auto& [name, t] : weights) dict.insert(name, t);
    const auto bytes = torch_save_bytes(dict);
    std::ofstream(pt, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  TensorFile file;
  for (const auto& [name, t] : weights) file.tensors["model.resnet." + name] = t;
  file.tensors.at("model.resnet.conv1.weight").view(-1)[0] = std::numeric_limits<float>::infinity();
  const std::string safetensors = (dir / "inf.safetensors").string();
  write_tensor_file(safetensors, file);
  for (const std::string& path : {pt, safetensors}) {
    try {
      load_init_weights({{"resnet", net.ptr()}}, path);
      ADD_FAILURE() << path << ": non-finite weights were loaded";
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_NE(e.reason().find("conv1.weight' holds NaN or infinite values"), std::string::npos) << e.what();
    }
  }
}

TEST(InitWeights, AHostilePickleIsRefusedAndRunsNothing) {
  const fs::path pwned = "/tmp/medsynth_torch_archive_pwned";  // what the fixture's os.system would create
  fs::remove(pwned);
  ResNet3d net(tiny_resnet());
  const std::string hostile = (k_data / "hostile_os_system.pt").string();
  try {
    load_init_weights({{"resnet", net.ptr()}}, hostile);
    FAIL() << "a pickle calling os.system was loaded";
  } catch (const DataError& e) {
    EXPECT_NE(e.reason().find("refuses to load global 'os.system'"), std::string::npos) << e.reason();
  }
  EXPECT_FALSE(fs::exists(pwned));
}

TEST(InitWeights, PrefixesCoverTheChosenNamesAndNoOther) {
  const std::vector<std::string> all = {"a.0.w", "a.0.b", "a.1.w", "b.w", "c"};
  EXPECT_EQ(covering_prefixes({"a.0.w", "a.0.b", "a.1.w"}, all), (std::vector<std::string>{"a.*"}));
  EXPECT_EQ(covering_prefixes({"a.0.w", "a.0.b", "c"}, all), (std::vector<std::string>{"a.0.*", "c"}));
  EXPECT_EQ(covering_prefixes({"a.0.w", "b.w"}, all), (std::vector<std::string>{"a.0.w", "b.w"}));
  EXPECT_TRUE(covering_prefixes({}, all).empty());
}

// The user's path: the binary, a survival job at the fixture's widths, the
// file given with --init-weights; run_started and the log say what happened,
// and the backbone trains on from the file's values (lr 1e-12: one step
// leaves them within 1e-6).
TEST(InitWeights, ASurvivalRunStartsFromMedicalNetWeightsAndReportsThem) {
  test::TempDir dir("init-weights-medicalnet");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/survival-tiny.yaml";
  const auto r = test::run_process(
      {test::engine_binary(), "train", job, "model.resnet.block_inplanes=[2,4,8,16]", "data.num_train=8",
       "data.num_val=4", "data.phantom_size=[16,16,16]", "data.patch_size=[16,16,16]", "training.batch_size=4",
       "training.max_steps=1", "training.warmup_steps=0", "training.lr=1e-12", "training.num_threads=1",
       "--init-weights", k_medicalnet, "--runs-dir", (dir / "runs").string(), "--no-progress"},
      dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();

  nlohmann::json extra;
  std::istringstream events(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(events, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e.value("type", "") == "run_started") extra = e.at("extra");
  }
  ASSERT_FALSE(extra.is_null());
  EXPECT_EQ(extra.value("init_weights_format", ""), "torch.save");
  EXPECT_EQ(extra.value("init_weights_layout", ""), "MedicalNet 3D ResNet");
  EXPECT_EQ(extra.value("init_weights_loaded", 0), 72);
  EXPECT_EQ(extra.at("init_weights_loaded_names").size(), 6u);
  ASSERT_EQ(extra.at("init_weights_ignored").size(), 1u);
  EXPECT_EQ(extra.at("init_weights_ignored")[0].get<std::string>().rfind("conv_seg.* (14): MedicalNet's", 0), 0u)
      << extra.dump();
  ASSERT_EQ(extra.at("init_weights_left_initial").size(), 1u);
  EXPECT_EQ(extra.at("init_weights_left_initial")[0].get<std::string>().rfind("fc.* (2): ", 0), 0u) << extra.dump();

  const std::string log = test::read_bytes(run / "logs" / "rank0.log");
  EXPECT_NE(log.find("ignored in the file: conv_seg.* (14)"), std::string::npos) << log;

  const TensorFile last = read_tensor_file((run / "checkpoints" / "last.safetensors").string());
  const at::Tensor conv = last.tensors.at("model.resnet.layer4.0.conv2.weight");
  EXPECT_LT((conv - generated({16, 16, 3, 3, 3}, 60)).abs().max().item<double>(), 1e-6);
}

}  // namespace
}  // namespace medsynth

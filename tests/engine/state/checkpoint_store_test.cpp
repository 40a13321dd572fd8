// engine/state's checkpoint files: safetensors layout by name, atomic replacement surviving a
// SIGKILL mid-write, corrupt files refused with the path, best-k rotation.
#include <gtest/gtest.h>

#include <set>

#include <ATen/ATen.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "state/checkpoint_store.hpp"
#include "state/tensor_file.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

TensorFile sample_file(float fill, int64_t n = 1000) {
  TensorFile f;
  f.tensors["model.autoencoder.encoder.blocks.0.conv.weight"] = at::full({n}, fill);
  f.tensors["optim.generator.step"] = at::arange(5, at::kLong);
  f.metadata["format"] = "test";
  return f;
}

}  // namespace

TEST(TensorFile, RoundTripKeepsNamesDtypesShapesAndMetadata) {
  test::TempDir dir("tf");
  TensorFile f;
  f.tensors["a.weight"] = at::randn({2, 3, 4});
  f.tensors["b.count"] = at::arange(7, at::kLong);
  f.tensors["c.half"] = at::randn({5}).to(at::kBFloat16);
  f.metadata["job"] = "name: x\n";
  const auto path = (dir / "x.safetensors").string();
  write_tensor_file(path, f);
  TensorFile g = read_tensor_file(path);
  ASSERT_EQ(g.tensors.size(), 3u);
  for (const auto& [name, t] : f.tensors) EXPECT_TRUE(at::equal(t, g.tensors.at(name))) << name;
  EXPECT_EQ(g.metadata.at("job"), "name: x\n");
  // The layout other tools read: 8-byte little-endian header length, then JSON.
  std::string bytes = test::read_bytes(path);
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  EXPECT_EQ(bytes[8], '{');
  EXPECT_NE(bytes.substr(8, len).find("\"a.weight\":{\"data_offsets\""), std::string::npos);
}

TEST(TensorFile, CorruptOrTruncatedFilesAreRefusedNamingThePath) {
  test::TempDir dir("tfbad");
  const auto path = (dir / "c.safetensors").string();
  write_tensor_file(path, sample_file(1.0f));
  std::string bytes = test::read_bytes(path);
  test::write_bytes(dir / "trunc.safetensors", bytes.substr(0, bytes.size() - 100));
  test::write_bytes(dir / "garbage.safetensors", "hello world, not a checkpoint");
  std::string bad_json = bytes;
  bad_json[10] = '#';
  test::write_bytes(dir / "json.safetensors", bad_json);
  for (const char* name : {"trunc.safetensors", "garbage.safetensors", "json.safetensors", "missing.safetensors"}) {
    const auto p = (dir / name).string();
    try {
      read_tensor_file(p);
      FAIL() << name << " was accepted";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

// Issue 19.8: 3 x 6148914691236517206 wraps to 2 in 64 bits, so the byte
// count matched 8 data bytes and the reader went on to allocate the shape.
TEST(TensorFile, AShapeWhoseProductWrapsAround64BitsIsRefused) {
  test::TempDir dir("tfwrap");
  for (const std::string shape : {"[3, 6148914691236517206]", "[4294967296, 4294967296, 1]", "[2, 4611686018427387904]"}) {
    const std::string header = R"({"w":{"dtype":"F32","shape":)" + shape + R"(,"data_offsets":[0,8]}})";
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    bytes += header + std::string(8, '\0');
    const auto path = (dir / "wrap.safetensors").string();
    test::write_bytes(path, bytes);
    try {
      read_tensor_file(path);
      FAIL() << shape << " was accepted";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("tensor 'w': shape " + shape), std::string::npos) << e.what();
    }
  }
}

TEST(TensorFile, KillDuringWriteLeavesThePreviousCheckpointLoadable) {
  test::TempDir dir("kill");
  const auto path = (dir / "last.safetensors").string();
  write_tensor_file(path, sample_file(1.0f, 1 << 20));
  // Built before fork: the child must not start ATen's thread pool.
  const TensorFile replacement = sample_file(2.0f, 1 << 20);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Die by SIGKILL once half of the new checkpoint is on disk.
    set_tensor_file_write_hook([](std::size_t written) {
      if (written > (2u << 20)) raise(SIGKILL);
    });
    write_tensor_file(path, replacement);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  TensorFile f = read_tensor_file(path);
  EXPECT_TRUE(at::equal(f.tensors.begin()->second, at::full({1 << 20}, 1.0f)));
  // The half-written temp file is left under a hidden temp name, never the final one.
  int temps = 0;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) ++temps;
  EXPECT_EQ(temps, 1);
  // A new store sweeps such leftovers away.
  CheckpointStore store({dir.path().string(), 3, "val/psnr", "max"});
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

TEST(CheckpointStore, KeepsTheBestKByMetricAndNeverANan) {
  test::TempDir dir("store");
  CheckpointStore store({dir.path().string(), 2, "val/psnr", "max"});
  EXPECT_TRUE(store.offer_best(sample_file(1), 20.0, 10));
  EXPECT_TRUE(store.offer_best(sample_file(2), 25.5, 20));
  EXPECT_FALSE(store.offer_best(sample_file(3), 19.0, 30));
  EXPECT_FALSE(store.offer_best(sample_file(4), std::nan(""), 40));
  auto best = store.offer_best(sample_file(5), 30.25, 50);
  ASSERT_TRUE(best);
  EXPECT_EQ(fs::path(*best).filename().string(), "best-val_psnr-30.25-step000050.safetensors");
  ASSERT_EQ(store.best().size(), 2u);
  EXPECT_DOUBLE_EQ(store.best()[0].value, 30.25);
  EXPECT_DOUBLE_EQ(store.best()[1].value, 25.5);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.path().filename().string().rfind("best-", 0) == 0;
  EXPECT_EQ(files, 2);
  CheckpointStore reopened({dir.path().string(), 2, "val/psnr", "max"});  // resume sees the same ranking
  ASSERT_EQ(reopened.best().size(), 2u);
  EXPECT_DOUBLE_EQ(reopened.best()[0].value, 30.25);
}

TEST(CheckpointStore, NamePrefixGivesTheSeedsEpochAndPsnrNamesAndSurvivesAResume) {
  test::TempDir dir("store-prefix");
  CheckpointStore store({dir.path().string(), 3, "val/psnr", "max", "vqgan-patches"});
  auto a = store.offer_best(sample_file(1), 27.456, 100, 4);
  ASSERT_TRUE(a);
  EXPECT_EQ(fs::path(*a).filename().string(), "vqgan-patches-epoch04-psnr27.46.safetensors");
  EXPECT_TRUE(store.offer_best(sample_file(2), 29.0, 200, 9));
  EXPECT_TRUE(store.offer_best(sample_file(3), 28.0, 300, 12));
  EXPECT_TRUE(store.offer_best(sample_file(4), 30.5, 400, 15));  // pushes out epoch 4
  EXPECT_FALSE(fs::exists(*a));
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"vqgan-patches-epoch09-psnr29.00.safetensors", "vqgan-patches-epoch12-psnr28.00.safetensors",
                                          "vqgan-patches-epoch15-psnr30.50.safetensors"}));
  CheckpointStore reopened({dir.path().string(), 3, "val/psnr", "max", "vqgan-patches"});
  ASSERT_EQ(reopened.best().size(), 3u);
  EXPECT_DOUBLE_EQ(reopened.best()[0].value, 30.5);
  EXPECT_DOUBLE_EQ(reopened.best()[2].value, 28.0);
}

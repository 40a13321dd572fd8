// core/remove_tree.hpp: a folder goes with everything under it, a link goes
// without what it points to, a missing folder is no error, and a folder that
// cannot be walked is an error naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/remove_tree.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

TEST(RemoveTree, RemovesAFolderWithNestedFilesAndFolders) {
  test::TempDir dir("remove-tree");
  const fs::path run = dir / "run";
  fs::create_directories(run / "checkpoints" / "old");
  std::ofstream(run / "events.jsonl") << "{}\n";
  std::ofstream(run / "checkpoints" / "last.safetensors") << "x";
  std::ofstream(run / "checkpoints" / "old" / "step-10.safetensors") << "y";
  std::error_code ec;
  remove_tree(run, ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_FALSE(fs::exists(run));
  EXPECT_TRUE(fs::exists(dir.path())) << "only the folder named goes";
}

TEST(RemoveTree, RemovesALinkNotWhatItPointsTo) {
  test::TempDir dir("remove-tree-link");
  fs::create_directories(dir / "kept");
  std::ofstream(dir / "kept" / "data.nii.gz") << "z";
  fs::create_directories(dir / "gone");
  fs::create_directory_symlink(dir / "kept", dir / "gone" / "link");
  remove_tree(dir / "gone");
  EXPECT_FALSE(fs::exists(dir / "gone"));
  EXPECT_TRUE(fs::exists(dir / "kept" / "data.nii.gz")) << "the link's target must survive";
}

TEST(RemoveTree, AMissingFolderIsNoError) {
  test::TempDir dir("remove-tree-missing");
  std::error_code ec;
  remove_tree(dir / "never-made", ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_NO_THROW(remove_tree(dir / "never-made"));
}

TEST(RemoveTree, APathThatCannotBeWalkedIsAnErrorNamingIt) {
  // Through a file, not a folder (ENOTDIR): refused for root too, as CI runs.
  test::TempDir dir("remove-tree-bad");
  std::ofstream(dir / "file.txt") << "w";
  const fs::path bad = dir / "file.txt" / "child";
  std::error_code ec;
  remove_tree(bad, ec);
  EXPECT_EQ(ec, std::errc::not_a_directory) << ec.message();
  try {
    remove_tree(bad);
    ADD_FAILURE() << "walking through a file should be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir / "file.txt"));
}

// A fresh directory per test, removed afterwards unless MEDSYNTH_KEEP_TEST_DIRS is set.
#pragma once

#include <filesystem>
#include <string>

namespace medsynth::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag = "test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Writes bytes to a file (for hand-made corrupt inputs).
void write_bytes(const std::filesystem::path& path, const std::string& bytes);
std::string read_bytes(const std::filesystem::path& path);

}  // namespace medsynth::test

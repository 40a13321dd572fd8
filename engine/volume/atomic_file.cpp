// POSIX calls for write_file_atomically. mkstemps creates the temp name
// exclusively, so concurrent writers of the same target never share a temp.
#include "volume/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace medsynth {
namespace {

// The process umask without changing it (umask(2) can only read by setting,
// which would race with other threads creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

void fsync_path(const std::string& path, int flags, const std::string& what) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw std::runtime_error("cannot open " + what + " to sync it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("fsync of " + what + " failed: " + std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& extension,
                           const std::function<void(const std::string& temp_path)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string stem = target.filename().string();
  if (stem.size() >= extension.size()) stem.resize(stem.size() - extension.size());

  std::string temp = (dir / ("." + stem + ".tmp-XXXXXX" + extension)).string();
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  const int fd = ::mkstemps(name.data(), static_cast<int>(extension.size()));
  if (fd < 0) throw RuntimeError(path + ": cannot write: cannot create a temp file in " + dir.string() + ": " +
                                 std::strerror(errno));
  // mkstemps makes the file 0600; give the result the mode a plain create would.
  ::fchmod(fd, 0666 & ~current_umask());
  ::close(fd);
  temp.assign(name.data());

  try {
    write(temp);
    fsync_path(temp, O_RDONLY, "the temp file");
    if (std::rename(temp.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot rename the temp file into place: " + std::string(std::strerror(errno)));
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw RuntimeError(path + ": cannot write: " + e.what());
  }
  // The rename is durable only once the directory entry is; the file is
  // already complete under its final name, so a failure here is reported
  // but the file is not removed.
  try {
    fsync_path(dir.string(), O_RDONLY | O_DIRECTORY, "the directory");
  } catch (const std::exception& e) {
    throw RuntimeError(path + ": written, but " + std::string(e.what()));
  }
}

}  // namespace medsynth

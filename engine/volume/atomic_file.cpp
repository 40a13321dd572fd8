// POSIX calls for write_file_atomically. mkstemps creates the temp name
// exclusively, so concurrent writers of the same target never share a temp.
// Every failure is classified from the cut temp file before it is removed
// (write_failure_cause.hpp): the writers inside (ITK, DCMTK) lose errno.
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
#include "volume/write_failure_cause.hpp"

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
  // A full disk may show only here (delayed allocation, NFS): ENOSPC is storage.
  if (rc != 0) throw_write_error("fsync of " + what + " failed: " + std::strerror(err), err);
}

// The error to throw for a failed write of `path` whose temp file is `temp`
// (still there): storage when the failure itself says so, or when the cut
// temp shows a full disk or the file-size limit; runtime otherwise.
[[noreturn]] void throw_failed_write(const std::string& path, const std::string& temp, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  if (error && error->kind() == ErrorKind::storage) throw StorageError(path + ": cannot write: " + e.what());
  // The check's DataError names the temp file, which the user never sees: its reason is enough.
  const auto* bad_file = dynamic_cast<const DataError*>(&e);
  const std::string what = bad_file ? "the file came out incomplete: " + bad_file->reason() : std::string(e.what());
  const int cause = storage_cause_of_failed_write(temp);
  if (cause != 0) throw StorageError(path + ": cannot write: " + std::strerror(cause) + " (" + what + ")");
  throw RuntimeError(path + ": cannot write: " + what);
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      throw_write_error(std::strerror(err), err);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& extension,
                           const std::function<void(const std::string& temp_path)>& write,
                           const std::function<void(const std::string& temp_path)>& check) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string stem = target.filename().string();
  if (stem.size() >= extension.size()) stem.resize(stem.size() - extension.size());

  std::string temp = (dir / ("." + stem + ".tmp-XXXXXX" + extension)).string();
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  const int fd = ::mkstemps(name.data(), static_cast<int>(extension.size()));
  if (fd < 0) {
    const int err = errno;
    throw_write_error(path + ": cannot write: cannot create a temp file in " + dir.string() + ": " + std::strerror(err),
                      err);
  }
  // mkstemps makes the file 0600; give the result the mode a plain create would.
  ::fchmod(fd, 0666 & ~current_umask());
  ::close(fd);
  temp.assign(name.data());

  try {
    try {
      write(temp);
      fsync_path(temp, O_RDONLY, "the temp file");
      // Read back from the file itself, after the fsync: what a writer did
      // not report (a short write, a missing gzip trailer) shows here.
      if (check) check(temp);
    } catch (const std::exception& e) {
      throw_failed_write(path, temp, e);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0)
      throw RuntimeError(path + ": cannot write: cannot rename the temp file into place: " + std::strerror(errno));
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
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

void write_string_atomically(const std::string& path, const std::string& bytes) {
  const std::string extension = std::filesystem::path(path).extension().string();
  write_file_atomically(
      path, extension,
      [&bytes](const std::string& temp) {
        const int fd = ::open(temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0) {
          const int err = errno;
          throw_write_error(std::string("cannot open the temp file: ") + std::strerror(err), err);
        }
        try {
          write_all(fd, bytes);
        } catch (...) {
          ::close(fd);
          throw;
        }
        // close(2) is where NFS and some quota setups report a failed write.
        if (::close(fd) != 0) {
          const int err = errno;
          throw_write_error(std::string("close failed: ") + std::strerror(err), err);
        }
      },
      [&bytes](const std::string& temp) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(temp, ec);
        if (ec) throw std::runtime_error("cannot read back the temp file: " + ec.message());
        if (size != bytes.size())
          throw std::runtime_error("the file holds " + std::to_string(size) + " of " + std::to_string(bytes.size()) +
                                   " bytes");
      });
}

}  // namespace medsynth

// The limit is looked at before the probe byte: a byte written past
// RLIMIT_FSIZE raises SIGXFSZ, which only the engine's main() ignores (a test
// or the console linking this library would be killed by it).
#include "volume/write_failure_cause.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace medsynth {
namespace {

bool is_storage_errno(int e) { return e == EFBIG || e == ENOSPC || e == EDQUOT; }

// What appending one byte to `path` says (0 when it is accepted or the file cannot be opened).
int probe_one_byte(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return 0;
  const char byte = 0;
  ssize_t n = 0;
  do n = ::write(fd, &byte, 1);
  while (n < 0 && errno == EINTR);
  int err = n < 0 ? errno : 0;
  // A file system may accept the byte into its cache and refuse it only when
  // it is flushed (NFS, quotas on some file systems).
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  return err;
}

}  // namespace

int storage_cause_of_failed_write(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        static_cast<rlim_t>(st.st_size) >= limit.rlim_cur)
      return EFBIG;
    const int probe = probe_one_byte(path);
    if (is_storage_errno(probe)) return probe;
  }
  // A probe byte can still fit in the file's last, partly used block of a full disk.
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  struct statvfs fs {};
  if (::statvfs(parent.empty() ? "." : parent.c_str(), &fs) == 0 && fs.f_blocks > 0 && fs.f_bavail == 0) return ENOSPC;
  return 0;
}

}  // namespace medsynth

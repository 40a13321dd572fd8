// Shared by the libFuzzer harnesses in tests/fuzz: a private scratch folder
// (on /dev/shm when it is writable, so that writing each input costs no disk
// I/O) for the readers that take a path, and the rule that turns an escaping
// exception into a finding. Header-only, C library and std only: the pickle
// harness links LibTorch, whose libtorch.so exports its own std::filesystem
// copies (cmake/MedsynthDependencies.cmake), so nothing here uses
// std::filesystem.
#pragma once

#include <cxxabi.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

namespace medsynth::fuzz {

// A folder made once per process, <base>/medsynth-fuzz-<pid>, emptied and
// removed at exit. A process that dies of a finding (abort, a sanitizer
// report, libFuzzer's -minimize_crash children) cannot remove its folder, so
// each new process first removes the folders of ours whose process is gone.
// The harnesses write at most a few fixed names into it.
class ScratchDir {
 public:
  static ScratchDir& instance() {
    static ScratchDir* dir = new ScratchDir;  // never destroyed: the atexit handler below uses it
    return *dir;
  }
  // `name` inside the folder; remembered so that it is removed at exit.
  std::string path(const char* name) {
    std::string p = root_ + "/" + name;
    for (const auto& known : files_)
      if (known == p) return p;
    if (files_count_ < k_max_files) files_[files_count_++] = p;
    return p;
  }

 private:
  static constexpr int k_max_files = 8;
  static constexpr const char* k_prefix = "medsynth-fuzz-";

  ScratchDir() {
    const char* tmpdir = std::getenv("TMPDIR");
    for (const char* base : {"/dev/shm", tmpdir, "/tmp"}) {
      if (!base || access(base, W_OK) != 0) continue;
      remove_stale(base);
      std::string dir = std::string(base) + "/" + k_prefix + std::to_string(getpid());
      if (::mkdir(dir.c_str(), 0700) == 0) {
        root_ = dir;
        break;
      }
    }
    if (root_.empty()) {
      std::fprintf(stderr, "fuzz harness: cannot make a scratch folder\n");
      std::abort();
    }
    std::atexit([] { instance().remove(); });
  }

  // Empties and removes `dir` (plain files only: that is all a harness writes).
  static void remove_dir(const std::string& dir) {
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
          ::unlink((dir + "/" + e->d_name).c_str());
      ::closedir(d);
    }
    ::rmdir(dir.c_str());
  }

  // Our folders under `base` whose process no longer runs (or is this one: a
  // reused pid), owned by this user.
  static void remove_stale(const char* base) {
    DIR* d = ::opendir(base);
    if (!d) return;
    const std::size_t prefix = std::strlen(k_prefix);
    while (const dirent* e = ::readdir(d)) {
      const char* name = e->d_name;
      if (std::strncmp(name, k_prefix, prefix) != 0 || name[prefix] == '\0') continue;
      char* end = nullptr;
      const long pid = std::strtol(name + prefix, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      const std::string dir = std::string(base) + "/" + name;
      struct stat st {};
      if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
      if (pid == ::getpid() || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) remove_dir(dir);
    }
    ::closedir(d);
  }

  void remove() {
    for (int i = 0; i < files_count_; ++i) ::unlink(files_[i].c_str());
    ::rmdir(root_.c_str());
  }

  std::string root_;
  std::string files_[k_max_files];
  int files_count_ = 0;
};

// Replaces `path` with exactly `size` bytes; aborts (a harness failure, not a
// finding) when the scratch folder cannot take them.
inline void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(path.c_str());
    std::abort();
  }
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) {
      std::perror(path.c_str());
      std::abort();
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// An exception no reader may let out: print what it was and abort, so that
// libFuzzer records the input as a crash (a finding).
[[noreturn]] inline void unexpected_exception(const char* harness, const char* call) {
  std::string what = "unknown exception type";
  try {
    throw;
  } catch (const std::exception& e) {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    what = std::string(status == 0 && name ? name : typeid(e).name()) + ": " + e.what();
    std::free(name);
  } catch (...) {
  }
  std::fprintf(stderr, "\n==%s== FINDING: %s let an unexpected exception escape: %s\n", harness, call, what.c_str());
  std::abort();
}

}  // namespace medsynth::fuzz

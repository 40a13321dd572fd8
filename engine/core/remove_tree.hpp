// Removes a folder and everything under it (links themselves, never what
// they point to), as std::filesystem::remove_all does, through POSIX nftw.
// Why not remove_all: PyTorch 2.11's libtorch.so exports its own copy of it
// (and of 63 more std::filesystem functions), whose call into
// recursive_directory_iterator::__erase is a weak reference that an older
// C++ runtime leaves null; a program bound to that copy died of SIGSEGV on any
// non-empty folder. cmake/MedsynthDependencies.cmake links libstdc++ ahead of
// LibTorch, but the binding is the toolchain's to decide; this one calls the
// C library only. docs/performance.md, "The five crashes".
#pragma once

#include <ftw.h>
#include <stdio.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "core/error.hpp"

namespace medsynth {
namespace detail {

// Children before their folder (FTW_DEPTH); a failure stops the walk with its errno.
inline int remove_tree_entry(const char* path, const struct stat*, int, struct FTW*) {
  return ::remove(path) == 0 || errno == ENOENT ? 0 : errno;
}

}  // namespace detail

// No error when `root` does not exist (nothing to remove).
inline void remove_tree(const std::filesystem::path& root, std::error_code& ec) noexcept {
  ec.clear();
  errno = 0;
  const int result = ::nftw(root.c_str(), detail::remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (result == 0) return;
  const int err = result > 0 ? result : errno;
  if (err != ENOENT) ec.assign(err, std::generic_category());
}

// Throws StorageError (disk) or RuntimeError naming the folder.
inline void remove_tree(const std::filesystem::path& root) {
  std::error_code ec;
  remove_tree(root, ec);
  if (ec) throw_write_error(root.string() + ": cannot remove this folder: " + ec.message(), ec.value());
}

}  // namespace medsynth

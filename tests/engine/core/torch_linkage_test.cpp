// The C++ runtime's functions bind to the C++ runtime (libstdc++, or this
// program where it is linked statically), not to the copies a LibTorch build
// exports. PyTorch 2.11's libtorch.so exports 64 std::filesystem functions
// (RHEL devtoolset 13's libstdc++_nonshared, linked in and left visible);
// bound to those, remove_all of a non-empty folder died of SIGSEGV (the five
// cuda tests on the GPU nodes, import-maisi, export-dicom).
// cmake/MedsynthDependencies.cmake names libstdc++ ahead of LibTorch.
// Against torch 2.11 both cases fail without that (the second by SIGSEGV);
// against a LibTorch that exports no such copy (2.15) they pass either way.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>


namespace fs = std::filesystem;

namespace {

// The file of the shared object that holds the code at `address`.
std::string library_of(const void* address) {
  Dl_info info{};
  if (::dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "(unknown)";
  return info.dli_fname;
}

template <typename F>
const void* address_of(F* function) {
  return reinterpret_cast<const void*>(function);
}

}  // namespace

TEST(TorchLinkage, StdFilesystemFunctionsBindToTheCxxRuntimeNotToLibTorch) {
  using RemoveAll = std::uintmax_t(const fs::path&, std::error_code&);
  using Rename = void(const fs::path&, const fs::path&, std::error_code&);
  using CreateDirectories = bool(const fs::path&, std::error_code&);
  using Canonical = fs::path(const fs::path&, std::error_code&);
  const struct {
    const char* name;
    const void* address;
  } used[] = {
      {"std::filesystem::remove_all", address_of<RemoveAll>(&fs::remove_all)},
      {"std::filesystem::rename", address_of<Rename>(&fs::rename)},
      {"std::filesystem::create_directories", address_of<CreateDirectories>(&fs::create_directories)},
      {"std::filesystem::canonical", address_of<Canonical>(&fs::canonical)},
  };
  for (const auto& f : used) {
    const std::string library = fs::path(library_of(f.address)).filename().string();
    EXPECT_EQ(library.rfind("libtorch", 0), std::string::npos) << f.name << " is bound to " << library_of(f.address) << ", not to the C++ runtime";
    EXPECT_EQ(library.rfind("libc10", 0), std::string::npos) << f.name << " is bound to " << library_of(f.address);
  }
}

// What TempDir's teardown does after every test that wrote files: before the
// fix this died of SIGSEGV inside libtorch.so against PyTorch 2.11.
TEST(TorchLinkage, RemoveAllOfANonEmptyTreeWorks) {
  const fs::path root = fs::temp_directory_path() / ("medsynth-linkage-" + std::to_string(::getpid()));
  fs::create_directories(root / "run" / "checkpoints");
  std::ofstream(root / "run" / "events.jsonl") << "{}\n";
  std::ofstream(root / "run" / "checkpoints" / "last.safetensors") << "x";
  std::error_code ec;
  EXPECT_EQ(fs::remove_all(root, ec), 5u) << ec.message();
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_FALSE(fs::exists(root));
}

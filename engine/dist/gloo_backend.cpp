// Gloo's headers come from Debian's libgloo-dev; only declarations are used
// here (the implementation is LibTorch's own copy inside libtorch_cpu), so we
// never link Debian's libgloo.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "dist/backend_factory.hpp"

namespace medsynth {

c10::intrusive_ptr<c10d::Backend> make_gloo_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    std::chrono::milliseconds timeout, const std::string& interface_address) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(interface_address));
  options->threads = 2;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
}

}  // namespace medsynth

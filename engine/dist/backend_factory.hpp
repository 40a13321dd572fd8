// Creating a c10d backend (Gloo for CPU tensors, NCCL for CUDA tensors). Each
// factory lives in its own translation unit so that Gloo's and NCCL's headers
// (gloo from Debian's libgloo-dev, NCCL and CUDA from the toolkit) are seen by
// that one file only. Called by process_group.cpp.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

namespace medsynth {

// `interface_address`: the address Gloo's transport binds for peer
// connections (this rank's address on the network that reaches the others).
c10::intrusive_ptr<c10d::Backend> make_gloo_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    std::chrono::milliseconds timeout, const std::string& interface_address);

// Throws RuntimeError when this build has no NCCL (nccl_compiled_in() false).
c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    std::chrono::milliseconds timeout);
bool nccl_compiled_in();

}  // namespace medsynth

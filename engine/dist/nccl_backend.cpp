// NCCL for CUDA tensors. Compiled whenever LibTorch was built with NCCL (the
// PyPI wheel is): the GPU path must build on our GPU-less machines and be
// chosen at run time (distributed.backend auto -> nccl when CUDA is present).
#include "dist/backend_factory.hpp"
#include "core/error.hpp"

#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace medsynth {

bool nccl_compiled_in() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

c10::intrusive_ptr<c10d::Backend> make_nccl_backend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                                    std::chrono::milliseconds timeout) {
#ifdef USE_C10D_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
#else
  (void)store, (void)rank, (void)size, (void)timeout;
  throw RuntimeError("distributed.backend nccl: this build of LibTorch has no NCCL");
#endif
}

}  // namespace medsynth

// AdamW through ATen's fused kernel (`_fused_adamw_`): one vectorised pass
// over each parameter that reads the weight, gradient and both moments once
// and writes them once, where torch::optim::AdamW::step runs eight tensor
// operations per parameter, each a pass over memory with its own temporary
// (issue 51, docs/performance.md "Against MONAI on a CPU"). PyTorch's Python optimizer
// uses the same kernel with fused=True; MONAI's and NV-Generate's scripts
// leave it off, so on a CPU they run the loop.
//
// The state stays torch's AdamWParamState (step, exp_avg, exp_avg_sq), so a
// checkpoint does not know which of the two wrote it and a run resumes with
// either. The update is AdamW's up to rounding (the kernel computes the
// moments in one expression: fused_adamw_test.cpp holds it to the loop).
// amsgrad, and a parameter that is not one dense block of memory, fall back
// to the loop.
#pragma once

#include <torch/optim/adamw.h>

#include <vector>

namespace medsynth {

class FusedAdamW : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;

  at::Tensor step(LossClosure closure = nullptr) override;

 private:
  bool kernel_applies() const;
  void step_group(torch::optim::OptimizerParamGroup& group);
};

}  // namespace medsynth

// Learning-rate schedule as a pure function of the optimizer step, so that
// resuming needs only the step (and the rollback factor) to be bit-identical.
// Linear warm-up from 0, then cosine decay to min_lr_ratio * base_lr,
// constant, or polynomial decay to 0 as torch's PolynomialLR computes it
// (NV-Generate's diffusion training: power 2 over every step of the run).
#pragma once

#include <string>

namespace medsynth {

struct LrScheduleOptions {
  double base_lr = 1e-4;
  int warmup_steps = 0;
  int total_steps = 1;
  std::string kind = "cosine";  // cosine | constant | polynomial
  double min_lr_ratio = 0.0;
  double power = 2.0;  // polynomial: base_lr x (1 - step / steps)^power
};

double learning_rate_at(const LrScheduleOptions& options, int step);

}  // namespace medsynth

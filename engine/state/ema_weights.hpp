// Exponential moving average of the trained modules' parameters (Polyak averaging), the
// weights that validation, best checkpoints and generation use when
// training.ema_decay > 0. Updated after every optimizer step with a decay that
// warms up as min(decay, (1 + step) / (10 + step)), so early averages are not
// dominated by the random initialisation. Stored in checkpoints as
// "ema.<module>.<param>" for an exact resume. Used by the Trainer.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <vector>

#include "state/trained_modules.hpp"

namespace medsynth {

class EmaWeights {
 public:
  EmaWeights(const std::vector<NamedModule>& modules, double decay);
  bool enabled() const { return decay_ > 0; }
  void update(int step);
  // Puts the averages into the live parameters (swap_in) and back (swap_out).
  void swap_in();
  void swap_out();
  std::map<std::string, at::Tensor> tensors() const;                        // "ema.<module>.<param>"
  void restore(const std::map<std::string, at::Tensor>& file_tensors, const std::string& path);

 private:
  double decay_;
  std::vector<std::string> names_;
  std::vector<at::Tensor> live_;
  std::vector<at::Tensor> average_;
  std::vector<at::Tensor> backup_;
};

// RAII: validation with the averaged weights, live weights back afterwards.
class ScopedEmaWeights {
 public:
  explicit ScopedEmaWeights(EmaWeights& ema) : ema_(ema) {
    if (ema_.enabled()) ema_.swap_in();
  }
  ~ScopedEmaWeights() {
    if (ema_.enabled()) ema_.swap_out();
  }
  ScopedEmaWeights(const ScopedEmaWeights&) = delete;
  ScopedEmaWeights& operator=(const ScopedEmaWeights&) = delete;

 private:
  EmaWeights& ema_;
};

}  // namespace medsynth

#include "dist/parameter_check.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"

namespace medsynth {

void check_parameters_identical(DistContext& context, const std::vector<std::string>& names, const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> reference;
  for (const auto& t : tensors) reference.push_back(t.detach().clone());
  context.broadcast(reference, 0, "parameter check");
  // Index+1 of the first tensor that differs here (0: none), then the max over ranks.
  double first_bad = 0;
  double max_diff = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (at::equal(reference[i], tensors[i].detach())) continue;
    first_bad = static_cast<double>(i + 1);
    max_diff = (reference[i].to(at::kDouble) - tensors[i].detach().to(at::kDouble)).abs().max().item<double>();
    break;
  }
  // Sum of indicator and index per rank is enough to know if anyone differs;
  // each rank reports its own finding in its log via the thrown message.
  const auto totals = context.all_reduce_sum({first_bad > 0 ? 1.0 : 0.0}, "parameter check");
  if (totals[0] == 0) return;
  if (first_bad > 0)
    throw RuntimeError("parameters differ between rank 0 and rank " + std::to_string(context.rank()) + ": first at '" +
                       names[static_cast<std::size_t>(first_bad) - 1] + "' (max |difference| " + std::to_string(max_diff) + ")");
  throw RuntimeError("parameters differ between ranks (" + std::to_string(static_cast<int>(totals[0])) +
                     " rank(s) disagree with rank 0; see their logs)");
}

}  // namespace medsynth

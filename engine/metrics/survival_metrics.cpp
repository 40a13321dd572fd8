#include "metrics/survival_metrics.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace medsynth {

at::Tensor cox_partial_likelihood_loss(const at::Tensor& risk_in, const at::Tensor& time_in, const at::Tensor& event_in) {
  if (risk_in.dim() != 1 || time_in.sizes() != risk_in.sizes() || event_in.sizes() != risk_in.sizes())
    throw UsageError("cox loss: risk, time and event must be vectors of the same length");
  at::Tensor risk = risk_in.to(at::kDouble);
  at::Tensor time = time_in.to(risk.device(), at::kDouble);
  at::Tensor event = event_in.to(risk.device(), at::kDouble);
  const double events = event.sum().item<double>();
  if (events == 0) return (risk_in * 0).sum();
  // Sort by time, longest first: the risk set of subject k is then a prefix.
  at::Tensor order = at::argsort(time, /*stable=*/true, /*dim=*/0, /*descending=*/true);
  at::Tensor r = risk.index_select(0, order), t = time.index_select(0, order), e = event.index_select(0, order);
  at::Tensor log_cumsum = at::logcumsumexp(r, 0);
  // Breslow: a tied group's risk set is the prefix up to the group's last member.
  const auto n = t.size(0);
  auto tc = t.to(at::kCPU).contiguous();
  const double* tp = tc.data_ptr<double>();
  std::vector<std::int64_t> last(static_cast<std::size_t>(n));
  for (std::int64_t k = n - 1; k >= 0; --k)
    last[static_cast<std::size_t>(k)] = (k + 1 < n && tp[k + 1] == tp[k]) ? last[static_cast<std::size_t>(k + 1)] : k;
  at::Tensor group_end = at::tensor(last, at::TensorOptions().dtype(at::kLong)).to(r.device());
  at::Tensor log_risk_set = log_cumsum.index_select(0, group_end);
  at::Tensor loss = -((r - log_risk_set) * e).sum() / events;
  return loss.to(risk_in.scalar_type());
}

double harrell_c_index(const std::vector<double>& risk, const std::vector<double>& time, const std::vector<int>& event) {
  if (risk.size() != time.size() || risk.size() != event.size()) throw UsageError("c-index: risk, time and event differ in length");
  double concordant = 0, comparable = 0;
  for (std::size_t i = 0; i < risk.size(); ++i) {
    if (!event[i]) continue;
    for (std::size_t j = 0; j < risk.size(); ++j) {
      if (!(time[i] < time[j])) continue;
      comparable += 1;
      if (risk[i] > risk[j]) concordant += 1;
      else if (risk[i] == risk[j]) concordant += 0.5;
    }
  }
  return comparable > 0 ? concordant / comparable : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace medsynth

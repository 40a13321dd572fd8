#include "eval/intensity_checks.hpp"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.hpp"

namespace medsynth {

void HuHistogramOptions::validate() const {
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi)) throw UsageError("hu histogram: lo must be below hi (both finite)");
  if (!(bin_width > 0.0) || !std::isfinite(bin_width)) throw UsageError("hu histogram: bin_width must be a finite number > 0");
}

at::Tensor hu_histogram(const std::vector<at::Tensor>& volumes, const HuHistogramOptions& o) {
  o.validate();
  if (volumes.empty()) throw UsageError("hu histogram: no volumes");
  const auto bins = static_cast<std::int64_t>(std::ceil((o.hi - o.lo) / o.bin_width));
  at::Tensor counts = at::zeros({bins}, at::kDouble);
  for (const auto& v : volumes) {
    auto values = v.detach().to(at::kDouble).flatten();
    values = values.masked_select(at::isfinite(values)).clamp(o.lo, o.hi - 1e-9 * o.bin_width);
    const auto index = ((values - o.lo) / o.bin_width).floor().to(at::kLong).clamp(0, bins - 1);
    counts.index_add_(0, index, at::ones_like(values));
  }
  const double total = counts.sum().item<double>();
  if (total <= 0) throw UsageError("hu histogram: no finite voxel");
  return counts / total;
}

double histogram_w1_hu(const at::Tensor& a, const at::Tensor& b, const HuHistogramOptions& o) {
  if (a.sizes() != b.sizes()) throw UsageError("hu histogram distance: the histograms have different bins");
  return (a.cumsum(0) - b.cumsum(0)).abs().sum().item<double>() * o.bin_width;
}

double fraction_outside(const std::vector<at::Tensor>& volumes, double lo, double hi) {
  double outside = 0, total = 0;
  for (const auto& v : volumes) {
    const auto d = v.detach().to(at::kDouble);
    outside += (~(at::isfinite(d) & (d >= lo) & (d <= hi))).sum().item<double>();
    total += static_cast<double>(d.numel());
  }
  return total > 0 ? outside / total : 0.0;
}

}  // namespace medsynth

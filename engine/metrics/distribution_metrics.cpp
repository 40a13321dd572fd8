#include "metrics/distribution_metrics.hpp"

#include <ATen/ATen.h>

#include <string>

#include "core/error.hpp"

namespace medsynth {
namespace {

at::Tensor features_of(const at::Tensor& t, const char* name) {
  if (!t.defined() || t.dim() != 2) throw UsageError(std::string("frechet_distance: ") + name + " must be [samples, features]");
  if (t.size(0) < 2) throw UsageError(std::string("frechet_distance: ") + name + " needs at least 2 samples (got " + std::to_string(t.size(0)) + ")");
  return t.detach().to(at::kDouble);
}

at::Tensor covariance(const at::Tensor& f) {
  const auto centred = f - f.mean(0, true);
  return centred.t().mm(centred) / static_cast<double>(f.size(0) - 1);
}

// Square root of a symmetric positive semi-definite matrix (tiny negative
// eigenvalues from rounding are clamped to 0).
at::Tensor psd_sqrt(const at::Tensor& m) {
  auto [values, vectors] = at::linalg_eigh(0.5 * (m + m.t()));
  return vectors.mm(at::diag(values.clamp_min(0.0).sqrt())).mm(vectors.t());
}

}  // namespace

double frechet_distance(const at::Tensor& features_a, const at::Tensor& features_b) {
  at::NoGradGuard no_grad;
  const auto a = features_of(features_a, "features_a"), b = features_of(features_b, "features_b");
  if (a.size(1) != b.size(1))
    throw UsageError("frechet_distance: the feature sets differ in width (" + std::to_string(a.size(1)) + " and " +
                     std::to_string(b.size(1)) + ")");
  const auto diff = a.mean(0) - b.mean(0);
  const auto sa = covariance(a), sb = covariance(b);
  const auto root_a = psd_sqrt(sa);
  const auto middle = root_a.mm(sb).mm(root_a);
  const double trace_sqrt = at::linalg_eigvalsh(0.5 * (middle + middle.t())).clamp_min(0.0).sqrt().sum().item<double>();
  return diff.dot(diff).item<double>() + sa.trace().item<double>() + sb.trace().item<double>() - 2.0 * trace_sqrt;
}

double linear_mmd(const at::Tensor& reference, const at::Tensor& generated) {
  at::NoGradGuard no_grad;
  if (!reference.defined() || !generated.defined() || reference.dim() < 2 || generated.dim() < 2)
    throw UsageError("mmd: reference and generated must be [samples, ...]");
  if (reference.size(0) < 2 || generated.size(0) < 2) throw UsageError("mmd: needs at least 2 reference and 2 generated samples");
  if (reference.sizes().slice(1) != generated.sizes().slice(1))
    throw UsageError("mmd: reference and generated samples differ in shape (" + c10::str(reference.sizes()) + " and " +
                     c10::str(generated.sizes()) + ")");
  const auto y = reference.detach().to(at::kDouble).flatten(1), p = generated.detach().to(at::kDouble).flatten(1);
  const double m = static_cast<double>(y.size(0)), n = static_cast<double>(p.size(0));
  auto off_diagonal_sum = [](const at::Tensor& gram) { return (gram.sum() - gram.trace()).item<double>(); };
  return off_diagonal_sum(y.mm(y.t())) / (m * (m - 1)) + off_diagonal_sum(p.mm(p.t())) / (n * (n - 1)) -
         2.0 * p.mm(y.t()).sum().item<double>() / (m * n);
}

}  // namespace medsynth

#include "config/patch_discriminator_options.hpp"

#include <cmath>
#include <string>

#include "config/job_field_checks.hpp"
#include "config/job_loader.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

namespace {

std::int64_t conv_out(std::int64_t n, std::int64_t k, std::int64_t s, std::int64_t p) {
  const auto span = n + 2 * p - k;
  return span < 0 ? 0 : span / s + 1;
}

}  // namespace

std::vector<FieldError> PatchDiscriminatorOptions::problems() const {
  std::vector<FieldError> errors;
  check_discriminator_rows(*this, errors);
  Checks c(errors);
  const std::string p = "model.discriminator.";
  if (spatial_dims != 2 && spatial_dims != 3)
    c.fail(p + "spatial_dims", "must be 2 or 3 (got " + std::to_string(spatial_dims) + ")");
  if (in_channels < 1) c.fail(p + "in_channels", "must be >= 1 (got " + std::to_string(in_channels) + ")");
  if (out_channels < 1) c.fail(p + "out_channels", "must be >= 1 (got " + std::to_string(out_channels) + ")");
  if (kernel_size < 1) c.fail(p + "kernel_size", "must be >= 1 (got " + std::to_string(kernel_size) + ")");
  if (!(negative_slope >= 0.0) || !std::isfinite(negative_slope)) c.fail(p + "negative_slope", "must be a finite number >= 0");
  if (!(init_std > 0.0) || !std::isfinite(init_std)) c.fail(p + "init_std", "must be a finite number > 0");
  // Layer l has channels * 2^(l+1) filters: a divisor of 2 * channels divides them all.
  if (norm == DiscriminatorNorm::group && (norm_num_groups < 1 || (2 * channels) % norm_num_groups != 0))
    c.fail(p + "norm_num_groups", "must divide 2 * channels (" + std::to_string(2 * channels) + "), got " +
                                      std::to_string(norm_num_groups));
  return errors;
}

void PatchDiscriminatorOptions::validate() const {
  const auto errors = problems();
  if (!errors.empty()) throw UsageError(format_errors(errors));
}

std::int64_t PatchDiscriminatorOptions::output_size(std::int64_t n) const {
  const std::int64_t k = kernel_size, p = (kernel_size - 1) / 2;
  n = conv_out(n, k, 2, p);
  for (int l = 0; l < num_layers_d; ++l) n = conv_out(n, k, l == num_layers_d - 1 ? 1 : 2, p);
  return conv_out(n, k, 1, p);
}

}  // namespace medsynth

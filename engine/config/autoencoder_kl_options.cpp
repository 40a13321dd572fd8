#include "config/autoencoder_kl_options.hpp"

#include <array>
#include <cmath>

#include "config/job_field_checks.hpp"
#include "config/job_loader.hpp"
#include "config/job_spec.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

namespace {

const std::string k_prefix = "model.autoencoder.";

// One entry per level in every per-level list; GroupNorm splits each level's
// channels into norm_num_groups groups.
void check_levels(const AutoencoderKLOptions& a, Checks& c) {
  if (a.num_channels.empty()) {
    c.fail(k_prefix + "num_channels", "must hold at least one level");
    return;
  }
  bool positive = true;  // else its row's range has reported it
  for (int ch : a.num_channels) positive = positive && ch >= 1;
  if (positive && a.norm_num_groups >= 1) {
    bool divisible = true;
    for (int ch : a.num_channels) divisible = divisible && ch % a.norm_num_groups == 0;
    if (!divisible)
      c.fail(k_prefix + "num_channels", "every entry must be divisible by norm_num_groups (" +
                                            std::to_string(a.norm_num_groups) + ") (got " + list_text(a.num_channels) +
                                            ")");
  }
  const std::string levels = std::to_string(a.num_channels.size());
  if (a.num_res_blocks.size() != a.num_channels.size())
    c.fail(k_prefix + "num_res_blocks", "expected " + levels + " values, one per num_channels entry (got " +
                                            std::to_string(a.num_res_blocks.size()) + ")");
  if (a.attention_levels.size() != a.num_channels.size())
    c.fail(k_prefix + "attention_levels", "expected " + levels + " values, one per num_channels entry (got " +
                                              std::to_string(a.attention_levels.size()) + ")");
}

void check_logvar_clamp(const AutoencoderKLOptions& a, Checks& c) {
  const std::array<double, 2> clamp{a.logvar_min, a.logvar_max};
  if (!(a.logvar_min < a.logvar_max) || !std::isfinite(a.logvar_min) || !std::isfinite(a.logvar_max))
    c.fail("loss.logvar_clamp", "the first value must be below the second (got " + list_text(clamp) + ")");
  else if (a.logvar_max > 80.0)  // exp(logvar) must stay finite in float32 (max ~3.4e38 = e^88.7)
    c.fail("loss.logvar_clamp",
           "the second value must be <= 80 so exp(logvar) stays finite in float32 (got " + list_text(clamp) + ")");
}

}  // namespace

AutoencoderKLOptions AutoencoderKLOptions::from_spec(const AutoencoderKLOptions& autoencoder, const LossSpec& loss) {
  auto o = autoencoder;
  o.logvar_min = loss.logvar_clamp[0];
  o.logvar_max = loss.logvar_clamp[1];
  return o;
}

std::vector<FieldError> AutoencoderKLOptions::problems() const {
  std::vector<FieldError> errors;
  check_autoencoder_rows(*this, errors);
  Checks c(errors);
  if (spatial_dims != 3)
    c.fail(k_prefix + "spatial_dims", "only 3 is supported (got " + std::to_string(spatial_dims) + ")");
  // The plain network has neither: accepting them there would silently do nothing.
  if (!maisi && num_splits > 1) c.fail(k_prefix + "num_splits", "needs model.autoencoder.maisi: true");
  if (!maisi && norm_float16) c.fail(k_prefix + "norm_float16", "needs model.autoencoder.maisi: true");
  check_levels(*this, c);
  check_logvar_clamp(*this, c);
  return errors;
}

void AutoencoderKLOptions::validate() const {
  const auto errors = problems();
  if (!errors.empty()) throw UsageError(format_errors(errors));
}

int AutoencoderKLOptions::compression() const { return num_channels.empty() ? 1 : 1 << (num_channels.size() - 1); }

}  // namespace medsynth

#include "config/resnet3d_options.hpp"

#include "config/job_field_checks.hpp"
#include "config/job_loader.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

std::vector<FieldError> ResNet3dOptions::problems() const {
  std::vector<FieldError> errors;
  check_resnet_rows(*this, errors);
  Checks c(errors);
  const std::string p = "model.resnet.";
  if (depth != 10 && depth != 18 && depth != 34 && depth != 50)
    c.fail(p + "depth", "must be 10, 18, 34 or 50 (got " + std::to_string(depth) + ")");
  if (block_inplanes.size() != 4)
    c.fail(p + "block_inplanes", "expected 4 values, one per layer (got " + std::to_string(block_inplanes.size()) + ")");
  if (conv1_t_size < 1 || conv1_t_size % 2 == 0)
    c.fail(p + "conv1_t_size", "must be odd and >= 1 (got " + std::to_string(conv1_t_size) + ")");
  if (n_input_channels < 1)
    c.fail("model.autoencoder.in_channels", "must be >= 1 (got " + std::to_string(n_input_channels) + ")");
  if (num_covariates < 0) c.fail("data.covariates", "negative count");
  return errors;
}

void ResNet3dOptions::validate() const {
  const auto errors = problems();
  if (!errors.empty()) throw UsageError(format_errors(errors));
}

}  // namespace medsynth

#include "config/vector_quantizer_options.hpp"

#include <cmath>

#include "config/job_field_checks.hpp"
#include "config/job_loader.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

std::vector<FieldError> VectorQuantizerOptions::problems() const {
  std::vector<FieldError> errors;
  check_vector_quantizer_rows(*this, errors);
  Checks c(errors);
  if (!(epsilon > 0) || !std::isfinite(epsilon)) c.fail("model.vqgan.epsilon", "must be a finite number > 0");
  return errors;
}

void VectorQuantizerOptions::validate() const {
  const auto errors = problems();
  if (!errors.empty()) throw UsageError(format_errors(errors));
}

}  // namespace medsynth

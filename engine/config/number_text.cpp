#include "config/number_text.hpp"

#include <charconv>
#include <cmath>

namespace medsynth {

std::string short_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  // %g-style (0.0001 but 1e-05) reads better in a job file than the shortest form ("1e-04").
  const auto result = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general);
  return std::string(buf, result.ptr);
}

std::string yaml_number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  std::string text = short_number(value);
  // PyYAML (YAML 1.1) reads "1e-07" as a string: it needs a dot in the mantissa.
  if (text.find('.') != std::string::npos) return text;
  const auto e = text.find('e');
  if (e == std::string::npos) return text + ".0";
  return text.substr(0, e) + ".0" + text.substr(e);
}

}  // namespace medsynth

#include "config/job_node_values.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/did_you_mean.hpp"
#include "config/job_enums.hpp"

namespace medsynth {

namespace {

// A quoted scalar ("3", '3') or one tagged !!str is text, whatever it looks like.
bool is_quoted(const YAML::Node& node) {
  return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

std::optional<long long> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_float(std::string_view text) {
  // YAML's spellings of the special values (from_chars' "inf"/"nan" are not YAML).
  for (std::string_view s : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
    if (text == s) return std::numeric_limits<double>::infinity();
  for (std::string_view s : {"-.inf", "-.Inf", "-.INF"})
    if (text == s) return -std::numeric_limits<double>::infinity();
  for (std::string_view s : {".nan", ".NaN", ".NAN"})
    if (text == s) return std::numeric_limits<double>::quiet_NaN();
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string_view::npos) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ptr != text.data() + text.size()) return std::nullopt;
  // 1e999 is a number, just not a finite double: strtod says inf, read_value refuses it.
  if (ec == std::errc::result_out_of_range) return std::strtod(std::string(text).c_str(), nullptr);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(std::string_view text) {
  for (std::string_view s : {"true", "True", "TRUE"})
    if (text == s) return true;
  for (std::string_view s : {"false", "False", "FALSE"})
    if (text == s) return false;
  return std::nullopt;
}

// A plain scalar's text, or nothing when the node cannot be a number/bool.
std::optional<std::string> plain_scalar(const YAML::Node& node) {
  if (!node.IsScalar() || is_quoted(node)) return std::nullopt;
  return node.Scalar();
}

std::string quoted(const std::string& text) {
  constexpr std::size_t max_len = 40;
  std::string shown = text.size() > max_len ? text.substr(0, max_len) + "..." : text;
  return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <class Int>
void read_integer(const YAML::Node& node, const std::string& path, Int& out, std::vector<FieldError>& errors) {
  const auto text = plain_scalar(node);
  const auto value = text ? parse_integer(*text) : std::nullopt;
  if (!value) {
    errors.push_back({path, "expected an integer (got " + describe_node(node) + ")"});
    return;
  }
  if (*value < std::numeric_limits<Int>::min() || *value > std::numeric_limits<Int>::max()) {
    errors.push_back({path, "integer out of range (got " + *text + ")"});
    return;
  }
  out = static_cast<Int>(*value);
}

template <class Enum, class Parse>
void read_enum(const YAML::Node& node, const std::string& path, Enum& out, std::vector<FieldError>& errors,
               const Parse& parse, const std::vector<std::string>& names) {
  std::string choices;
  for (const auto& n : names) choices += (choices.empty() ? "" : ", ") + n;
  if (!node.IsScalar()) {
    errors.push_back({path, "expected one of " + choices + " (got " + describe_node(node) + ")"});
    return;
  }
  if (const auto value = parse(node.Scalar())) {
    out = *value;
    return;
  }
  errors.push_back({path, "expected one of " + choices + " (got " + quoted(node.Scalar()) + ")" +
                              did_you_mean(node.Scalar(), names)});
}

}  // namespace

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Sequence: {
      const std::size_t n = node.size();
      return "a sequence of " + std::to_string(n) + (n == 1 ? " value" : " values");
    }
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: break;
  }
  const std::string& text = node.Scalar();
  if (!is_quoted(node) && (parse_float(text) || parse_bool(text))) return text;
  return quoted(text);
}

void read_value(const YAML::Node& node, const std::string& path, int& out, std::vector<FieldError>& errors) {
  read_integer(node, path, out, errors);
}

void read_value(const YAML::Node& node, const std::string& path, std::int64_t& out, std::vector<FieldError>& errors) {
  read_integer(node, path, out, errors);
}

void read_value(const YAML::Node& node, const std::string& path, double& out, std::vector<FieldError>& errors) {
  const auto text = plain_scalar(node);
  const auto value = text ? parse_float(*text) : std::nullopt;
  if (!value) {
    errors.push_back({path, "expected a number (got " + describe_node(node) + ")"});
    return;
  }
  if (std::isinf(*value) && text->find_first_of("iI") == std::string::npos) {
    errors.push_back({path, "number out of range (got " + *text + ")"});
    return;
  }
  out = *value;
}

void read_value(const YAML::Node& node, const std::string& path, bool& out, std::vector<FieldError>& errors) {
  const auto text = plain_scalar(node);
  const auto value = text ? parse_bool(*text) : std::nullopt;
  if (!value) {
    errors.push_back({path, "expected true or false (got " + describe_node(node) + ")"});
    return;
  }
  out = *value;
}

void read_value(const YAML::Node& node, const std::string& path, std::string& out, std::vector<FieldError>& errors) {
  // An empty value ("resume:") is the empty string; validation decides whether that is allowed.
  if (node.IsNull()) {
    out.clear();
    return;
  }
  if (!node.IsScalar()) {
    errors.push_back({path, "expected a string (got " + describe_node(node) + ")"});
    return;
  }
  out = node.Scalar();
}

void read_value(const YAML::Node& node, const std::string& path, DataSource& out, std::vector<FieldError>& errors) {
  read_enum(node, path, out, errors, &parse_data_source, data_source_names());
}

void read_value(const YAML::Node& node, const std::string& path, Modality& out, std::vector<FieldError>& errors) {
  read_enum(node, path, out, errors, &parse_modality, modality_names());
}

void read_spelled_enum(const YAML::Node& node, const std::string& path, std::size_t& index,
                       const std::vector<std::string>& names, std::vector<FieldError>& errors) {
  const auto parse = [&names](std::string_view text) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (text == names[i]) return i;
    return std::nullopt;
  };
  read_enum(node, path, index, errors, parse, names);
}

}  // namespace medsynth

#include "config/job_document.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

namespace medsynth {

namespace {

using OrderedJson = nlohmann::ordered_json;

[[noreturn]] void throw_syntax(const std::string& source_name, const std::string& reason) {
  throw ConfigError({FieldError{"", reason}}, source_name);
}

// JSON strings become quoted scalars, so that "3" stays text exactly as in YAML.
YAML::Node to_yaml_node(const OrderedJson& j) {
  switch (j.type()) {
    case OrderedJson::value_t::object: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items()) map[key] = to_yaml_node(value);
      return map;
    }
    case OrderedJson::value_t::array: {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& value : j) seq.push_back(to_yaml_node(value));
      return seq;
    }
    case OrderedJson::value_t::string: {
      YAML::Node scalar(j.get<std::string>());
      scalar.SetTag("!");
      return scalar;
    }
    case OrderedJson::value_t::null: return YAML::Node(YAML::NodeType::Null);
    default: return YAML::Node(j.dump());  // numbers (shortest round-trip text) and booleans
  }
}

// A job is four levels deep at most (model.autoencoder.num_channels[i]).
// Deeper nesting is refused as it is read: a file nested 100 000 deep made
// the dotted paths below cost memory with the square of the depth (3.4 GB).
constexpr int k_max_json_depth = 64;

// Tracks the open objects while nlohmann parses, to report a key given twice.
class DuplicateKeyFinder {
 public:
  DuplicateKeyFinder(std::vector<FieldError>& errors, const std::string& source_name) : errors_(errors), source_name_(source_name) {}

  bool operator()(int depth, OrderedJson::parse_event_t event, OrderedJson& parsed) {
    using E = OrderedJson::parse_event_t;
    if (depth > k_max_json_depth)
      throw_syntax(source_name_, "invalid JSON: nested deeper than " + std::to_string(k_max_json_depth) + " levels (a job has at most 4)");
    switch (event) {
      case E::object_start: open_.push_back({pending_key(), {}, {}}); break;
      case E::array_start: open_.push_back({pending_key() + "[]", {}, {}}); array_depth_.push_back(open_.size()); break;
      case E::object_end: open_.pop_back(); break;
      case E::array_end:
        open_.pop_back();
        array_depth_.pop_back();
        break;
      case E::key: {
        const std::string key = parsed.get<std::string>();
        auto& object = open_.back();
        object.current = key;
        if (!object.seen.insert(key).second) errors_.push_back({path_of(key), "duplicate key"});
        break;
      }
      case E::value: break;
    }
    return true;
  }

 private:
  struct Open {
    std::string name;  // this object's dotted path
    std::set<std::string> seen;
    std::string current;
  };

  std::string pending_key() const {
    if (open_.empty()) return "";
    if (!array_depth_.empty() && array_depth_.back() == open_.size()) return open_.back().name;
    return path_of(open_.back().current);
  }

  std::string path_of(const std::string& key) const {
    const std::string& prefix = open_.back().name;
    return prefix.empty() ? key : prefix + "." + key;
  }

  std::vector<FieldError>& errors_;
  const std::string& source_name_;
  std::vector<Open> open_;
  std::vector<std::size_t> array_depth_;
};

YAML::Node parse_json(const std::string& text, const std::string& source_name, std::vector<FieldError>& errors) {
  std::vector<FieldError> duplicates;
  try {
    DuplicateKeyFinder finder(duplicates, source_name);
    const auto json = OrderedJson::parse(text, std::ref(finder));
    errors.insert(errors.end(), duplicates.begin(), duplicates.end());
    return to_yaml_node(json);
  } catch (const OrderedJson::parse_error& e) {
    // what() reads "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string message = e.what();
    if (const auto bracket = message.find("] "); message.rfind("[json.", 0) == 0 && bracket != std::string::npos)
      message = message.substr(bracket + 2);
    throw_syntax(source_name, "invalid JSON: " + message);
  }
}

YAML::Node parse_yaml(const std::string& text, const std::string& source_name) {
  try {
    const auto documents = YAML::LoadAll(text);
    if (documents.empty()) return YAML::Node(YAML::NodeType::Null);
    if (documents.size() > 1)
      throw_syntax(source_name, "expected one YAML document (got " + std::to_string(documents.size()) + ")");
    return documents.front();
  } catch (const YAML::ParserException& e) {
    throw_syntax(source_name, "invalid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw_syntax(source_name, std::string("invalid YAML: ") + e.what());
  }
}

}  // namespace

bool is_json_name(const std::string& name) {
  if (name.size() < 5) return false;
  std::string tail = name.substr(name.size() - 5);
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
  return tail == ".json";
}

YAML::Node parse_job_document(const std::string& text, const std::string& source_name, bool as_json,
                              std::vector<FieldError>& errors) {
  return as_json ? parse_json(text, source_name, errors) : parse_yaml(text, source_name);
}

}  // namespace medsynth

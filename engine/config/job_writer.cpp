// job_to_yaml / job_to_json: the resolved job, every field written in schema
// order, so that job.yaml in a run directory documents the whole run and reads
// back to the same JobSpec.
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/job_enums.hpp"
#include "config/job_loader.hpp"
#include "config/job_schema.hpp"
#include "config/number_text.hpp"

namespace medsynth {

namespace {

using OrderedJson = nlohmann::ordered_json;

// ---- YAML ------------------------------------------------------------------

std::string yaml_scalar(const std::string& s) {
  // JSON's string escapes are valid in a YAML double-quoted scalar, and quoting
  // keeps "true", "123" or "" strings from being typed as something else.
  return OrderedJson(s).dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}
std::string yaml_scalar(int v) { return std::to_string(v); }
std::string yaml_scalar(std::int64_t v) { return std::to_string(v); }
std::string yaml_scalar(double v) { return yaml_number(v); }
std::string yaml_scalar(bool v) { return v ? "true" : "false"; }
std::string yaml_scalar(DataSource v) { return std::string(to_string(v)); }
std::string yaml_scalar(Modality v) { return std::string(to_string(v)); }
// The scheduler's modes were strings until issue 33 and were written quoted:
// they stay quoted, so a run's job.yaml, its config hash and a resume of a run
// made before keep every byte.
template <SpelledEnum E>
std::string yaml_scalar(E v) {
  return yaml_scalar(std::string(to_string(v)));
}

template <class Range>
std::string yaml_flow(const Range& values) {
  std::string out = "[";
  bool first = true;
  for (const auto& v : values) {
    out += (first ? "" : ", ") + yaml_scalar(v);
    first = false;
  }
  return out + "]";
}
std::string yaml_scalar(const std::vector<bool>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + yaml_scalar(static_cast<bool>(v[i]));
  return out + "]";
}
std::string yaml_scalar(const std::vector<int>& v) { return yaml_flow(v); }
std::string yaml_scalar(const std::vector<std::string>& v) { return yaml_flow(v); }
template <class T, std::size_t N>
std::string yaml_scalar(const std::array<T, N>& v) {
  return yaml_flow(v);
}
template <class T, std::size_t N>
std::string yaml_scalar(const std::optional<std::array<T, N>>& v) {
  return v ? yaml_flow(*v) : "null";
}

class YamlWriter {
 public:
  template <class T>
  void field(const char* key, const T& value) {
    out_ << indent() << key << ": " << yaml_scalar(value) << "\n";
  }
  template <class F>
  void section(const char* key, F&& body) {
    out_ << indent() << key << ":\n";
    ++depth_;
    body();
    --depth_;
  }
  std::string text() const { return out_.str(); }

 private:
  std::string indent() const { return std::string(2 * depth_, ' '); }
  std::ostringstream out_;
  int depth_ = 0;
};

// ---- JSON ------------------------------------------------------------------

OrderedJson json_value(const std::string& v) { return v; }
OrderedJson json_value(int v) { return v; }
OrderedJson json_value(std::int64_t v) { return v; }
OrderedJson json_value(double v) { return v; }
OrderedJson json_value(bool v) { return v; }
OrderedJson json_value(DataSource v) { return std::string(to_string(v)); }
OrderedJson json_value(Modality v) { return std::string(to_string(v)); }
template <SpelledEnum E>
OrderedJson json_value(E v) {
  return std::string(to_string(v));
}
OrderedJson json_value(const std::vector<bool>& v) {
  OrderedJson out = OrderedJson::array();
  for (bool b : v) out.push_back(b);
  return out;
}
OrderedJson json_value(const std::vector<int>& v) { return OrderedJson(v); }
OrderedJson json_value(const std::vector<std::string>& v) { return OrderedJson(v); }
template <class T, std::size_t N>
OrderedJson json_value(const std::array<T, N>& v) {
  return OrderedJson(v);
}
template <class T, std::size_t N>
OrderedJson json_value(const std::optional<std::array<T, N>>& v) {
  return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

class JsonWriter {
 public:
  JsonWriter() { stack_.push_back(&root_); }
  template <class T>
  void field(const char* key, const T& value) {
    (*stack_.back())[key] = json_value(value);
  }
  template <class F>
  void section(const char* key, F&& body) {
    OrderedJson& child = (*stack_.back())[key] = OrderedJson::object();
    stack_.push_back(&child);
    body();
    stack_.pop_back();
  }
  const OrderedJson& root() const { return root_; }

 private:
  OrderedJson root_ = OrderedJson::object();
  std::vector<OrderedJson*> stack_;
};

}  // namespace

std::string job_to_yaml(const JobSpec& job) {
  YamlWriter writer;
  visit_job(job, writer);
  return "# medsynth job, resolved: every field present, defaults filled in (docs/job-file.md)\n" + writer.text();
}

std::string job_to_json(const JobSpec& job) {
  JsonWriter writer;
  visit_job(job, writer);
  return writer.root().dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace medsynth

// The loading pipeline: text -> document tree -> overrides -> typed JobSpec ->
// validate_job(), with the problems of every stage thrown together as one
// ConfigError.
#include "config/job_loader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/job_document.hpp"
#include "config/job_overrides.hpp"
#include "config/job_yaml_reader.hpp"

namespace medsynth {

namespace {

// One path inside the other ("data.patch_size" and "data.patch_size[1]"): a field
// whose value could not be read keeps its default, and a range rule about that
// default would only confuse.
bool same_field(const std::string& a, const std::string& b) {
  auto under = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           (inner[outer.size()] == '.' || inner[outer.size()] == '[');
  };
  return a == b || under(a, b) || under(b, a);
}

JobSpec load(const std::string& text, const std::string& source_name, bool as_json,
             const std::vector<std::string>& overrides) {
  std::vector<FieldError> errors;
  YAML::Node document = parse_job_document(text, source_name, as_json, errors);
  apply_overrides(document, overrides, errors);
  JobSpec job = read_job_document(document, errors);
  const std::vector<FieldError> read_errors = errors;
  for (auto& e : validate_job(job)) {
    bool shadowed = false;
    for (const auto& r : read_errors) shadowed = shadowed || same_field(e.path, r.path);
    if (!shadowed) errors.push_back(std::move(e));
  }
  if (!errors.empty()) throw ConfigError(std::move(errors), source_name);
  return job;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("job file " + path + " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read job file " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UsageError("cannot read job file " + path + ": " + std::strerror(errno));
  return ss.str();
}

}  // namespace

JobSpec load_job_file(const std::string& path) { return load_job_file_with_overrides(path, {}); }

JobSpec load_job_text(const std::string& text, const std::string& source_name) {
  return load(text, source_name, is_json_name(source_name), {});
}

JobSpec load_job_file_with_overrides(const std::string& path, const std::vector<std::string>& overrides) {
  return load(read_file(path), path, is_json_name(path), overrides);
}

JobSpec load_job_text_with_overrides(const std::string& text, const std::vector<std::string>& overrides,
                                     const std::string& source_name) {
  return load(text, source_name, is_json_name(source_name), overrides);
}

std::string format_errors(const std::vector<FieldError>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += e.to_string();
  }
  return out;
}

}  // namespace medsynth

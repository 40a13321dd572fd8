#include "config/job_overrides.hpp"

#include "config/job_schema.hpp"

namespace medsynth {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Checks the key against the schema; returns the reason it is not a job field, or "".
std::string check_key(const std::vector<std::string>& parts) {
  const SchemaNode* level = &job_schema();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!level->is_section) return "'" + level->name + "' is a field, not a section";
    const SchemaNode* child = level->child(parts[i]);
    if (!child) return "unknown key" + unknown_key_hint(parts[i], level->child_names());
    level = child;
  }
  return "";
}

// Walks/creates the mappings down to the parent of the last key.
std::string set_value(YAML::Node& document, const std::vector<std::string>& parts, const YAML::Node& value) {
  if (!document.IsDefined() || document.IsNull()) document = YAML::Node(YAML::NodeType::Map);
  if (!document.IsMap()) return "the job document is not a mapping";
  YAML::Node cur = document;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = cur[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[parts[i]]);
    }
    if (!next.IsMap()) return "'" + parts[i] + "' in the job file is not a mapping";
    // reset() rebinds; operator= would overwrite the node cur refers to.
    cur.reset(next);
  }
  cur[parts.back()] = value;
  return "";
}

}  // namespace

void apply_overrides(YAML::Node& document, const std::vector<std::string>& overrides, std::vector<FieldError>& errors) {
  for (const auto& text : overrides) {
    const std::string where = "override " + text;
    const auto eq = text.find('=');
    std::string key = eq == std::string::npos ? std::string() : trimmed(text.substr(0, eq));
    // Hydra's "+key" adds a key and "++key" adds or replaces; every job key exists in
    // the schema, so both mean the same as a plain override here.
    key.erase(0, std::min<std::size_t>(key.find_first_not_of('+'), key.size()));
    const auto parts = split_dots(key);
    bool empty_part = false;
    for (const auto& p : parts) empty_part = empty_part || p.empty();
    if (eq == std::string::npos || empty_part) {
      errors.push_back({where, "expected key=value, e.g. training.lr=3e-4"});
      continue;
    }
    if (auto reason = check_key(parts); !reason.empty()) {
      errors.push_back({where, reason});
      continue;
    }
    YAML::Node value;
    try {
      // A YAML scalar or flow collection: 3e-4, folder, [32,32,32], null, "quoted text".
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      errors.push_back({where, "invalid value: " + e.msg});
      continue;
    }
    if (auto reason = set_value(document, parts, value); !reason.empty()) errors.push_back({where, reason});
  }
}

}  // namespace medsynth

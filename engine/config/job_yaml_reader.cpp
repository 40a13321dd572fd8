#include "config/job_yaml_reader.hpp"

#include <string>

#include "config/job_node_values.hpp"
#include "config/job_schema.hpp"

namespace medsynth {

namespace {

std::string join_path(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

// One mapping of the document, with a note of which keys the schema claimed.
struct Frame {
  std::string path;
  struct Entry {
    std::string key;
    YAML::Node value;
    bool used = false;
  };
  std::vector<Entry> entries;
  std::vector<std::string> known;  // the schema's keys at this level, for suggestions

  Entry* find(const std::string& key) {
    for (auto& e : entries)
      if (e.key == key) return &e;
    return nullptr;
  }
};

class ReaderVisitor {
 public:
  explicit ReaderVisitor(std::vector<FieldError>& errors) : errors_(errors) {}

  void open_root(const YAML::Node& document) {
    frames_.push_back(Frame{});
    if (document.IsNull() || !document.IsDefined()) return;  // an empty file: every default
    if (!document.IsMap()) {
      errors_.push_back({"", "expected a mapping of sections at the top level (got " + describe_node(document) + ")"});
      return;
    }
    load_entries(document, frames_.back());
  }

  void close_root() {
    report_unknown(frames_.back());
    frames_.pop_back();
  }

  template <class T>
  void field(const char* key, T& value) {
    Frame& frame = frames_.back();
    frame.known.push_back(key);
    if (auto* entry = frame.find(key)) {
      entry->used = true;
      read_value(entry->value, join_path(frame.path, key), value, errors_);
    }
  }

  template <class F>
  void section(const char* key, F&& body) {
    Frame child;
    {
      Frame& frame = frames_.back();
      frame.known.push_back(key);
      child.path = join_path(frame.path, key);
      if (auto* entry = frame.find(key)) {
        entry->used = true;
        const YAML::Node& value = entry->value;
        if (value.IsMap())
          load_entries(value, child);
        else if (!value.IsNull())  // "training:" with nothing under it means all defaults
          errors_.push_back({child.path, "expected a mapping (got " + describe_node(value) + ")"});
      }
    }
    frames_.push_back(std::move(child));
    body();
    report_unknown(frames_.back());
    frames_.pop_back();
  }

 private:
  void load_entries(const YAML::Node& map, Frame& frame) {
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        errors_.push_back({frame.path, "keys must be names (got " + describe_node(kv.first) + " as a key)"});
        continue;
      }
      const std::string key = kv.first.Scalar();
      if (frame.find(key)) {
        // yaml-cpp keeps both copies; a silent "one of them wins" would hide an edit.
        errors_.push_back({join_path(frame.path, key), "duplicate key"});
        continue;
      }
      frame.entries.push_back({key, kv.second, false});
    }
  }

  void report_unknown(const Frame& frame) {
    for (const auto& entry : frame.entries) {
      if (entry.used) continue;
      const bool top_level = frame.path.empty();
      std::string reason = top_level && entry.value.IsMap() ? "unknown section" : "unknown key";
      errors_.push_back({join_path(frame.path, entry.key), reason + unknown_key_hint(entry.key, frame.known)});
    }
  }

  std::vector<FieldError>& errors_;
  std::vector<Frame> frames_;
};

}  // namespace

JobSpec read_job_document(const YAML::Node& document, std::vector<FieldError>& errors) {
  JobSpec job;
  ReaderVisitor reader(errors);
  reader.open_root(document);
  visit_job(job, reader);
  reader.close_root();
  return job;
}

}  // namespace medsynth

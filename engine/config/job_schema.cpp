#include "config/job_schema.hpp"

#include "config/did_you_mean.hpp"
#include "config/job_loader.hpp"

namespace medsynth {

namespace {

// Records the tree of names by visiting a default job once.
class SchemaBuilder {
 public:
  explicit SchemaBuilder(SchemaNode& root) { stack_.push_back(&root); }

  template <class T>
  void field(const char* key, const T&) {
    stack_.back()->children.push_back(SchemaNode{key, false, {}});
  }

  template <class F>
  void section(const char* key, F&& body) {
    stack_.back()->children.push_back(SchemaNode{key, true, {}});
    stack_.push_back(&stack_.back()->children.back());
    body();
    stack_.pop_back();
  }

 private:
  std::vector<SchemaNode*> stack_;
};

void collect_named(const SchemaNode& node, const std::string& prefix, const std::string& key,
                   std::vector<std::string>& out) {
  for (const auto& c : node.children) {
    const std::string path = prefix.empty() ? c.name : prefix + "." + c.name;
    if (c.is_section)
      collect_named(c, path, key, out);
    else if (c.name == key)
      out.push_back(path);
  }
}

}  // namespace

const SchemaNode* SchemaNode::child(const std::string& key) const {
  for (const auto& c : children)
    if (c.name == key) return &c;
  return nullptr;
}

std::vector<std::string> SchemaNode::child_names() const {
  std::vector<std::string> names;
  names.reserve(children.size());
  for (const auto& c : children) names.push_back(c.name);
  return names;
}

const SchemaNode& job_schema() {
  static const SchemaNode root = [] {
    SchemaNode r{"", true, {}};
    const JobSpec defaults;
    SchemaBuilder builder(r);
    visit_job(defaults, builder);
    return r;
  }();
  return root;
}

namespace {
void collect_leaves(const SchemaNode& node, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& c : node.children) {
    const std::string path = prefix.empty() ? c.name : prefix + "." + c.name;
    if (c.is_section)
      collect_leaves(c, path, out);
    else
      out.push_back(path);
  }
}
}  // namespace

std::vector<std::string> job_field_paths() {
  std::vector<std::string> out;
  collect_leaves(job_schema(), "", out);
  return out;
}

std::vector<std::string> schema_paths_named(const std::string& key) {
  std::vector<std::string> out;
  collect_named(job_schema(), "", key, out);
  return out;
}

std::string unknown_key_hint(const std::string& key, const std::vector<std::string>& known) {
  // A real key put in the wrong section ("training.patch_size") beats a near miss
  // at this level ("batch_size").
  const auto elsewhere = schema_paths_named(key);
  if (!elsewhere.empty()) return "; did you mean '" + elsewhere.front() + "'?";
  return did_you_mean(key, known);
}

}  // namespace medsynth

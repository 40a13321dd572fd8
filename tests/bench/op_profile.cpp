#include "op_profile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace medsynth::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Frame {
  std::string name;
  Clock::time_point start;
  double children = 0;  // seconds spent in operators this one called
  bool in_optimizer = false;
};

std::map<std::string, double>* g_sink = nullptr;
std::map<std::string, double>* g_names = nullptr;  // self seconds by operator name (--profile-names)
thread_local std::vector<Frame> t_stack;

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  const bool parent_optimizer = !t_stack.empty() && t_stack.back().in_optimizer;
  std::string name = fn.name();
  const bool in_optimizer = parent_optimizer || name == "optimizer";
  t_stack.push_back({std::move(name), Clock::now(), 0.0, in_optimizer});
  return nullptr;
}

void on_end(const at::RecordFunction&, at::ObserverContext*) {
  if (t_stack.empty()) return;
  Frame f = std::move(t_stack.back());
  t_stack.pop_back();
  const double total = std::chrono::duration<double>(Clock::now() - f.start).count();
  if (!t_stack.empty()) t_stack.back().children += total;
  if (g_sink != nullptr) (*g_sink)[op_class(f.name, f.in_optimizer)] += total - f.children;
  if (g_names != nullptr) (*g_names)[f.name] += total - f.children;
}

}  // namespace

std::string op_class(const std::string& name, bool in_optimizer) {
  if (in_optimizer) return "optimizer";
  if (name == "forward" || name == "backward" || name == "loss") return "between operators";
  if (contains(name, "autograd::engine::evaluate_function")) return "autograd engine";
  if (contains(name, "conv")) return "convolution";
  if (contains(name, "group_norm") || contains(name, "GroupNorm")) return "group_norm";
  if (contains(name, "silu") || contains(name, "Silu")) return "silu";
  if (contains(name, "upsample") || contains(name, "Upsample")) return "upsample";
  if (name == "aten::to" || contains(name, "_to_copy") || contains(name, "copy_") || contains(name, "contiguous") ||
      contains(name, "clone") || contains(name, "ToCopy") || contains(name, "CloneBackward"))
    return "cast and copy";
  if (contains(name, "empty") || contains(name, "zeros") || contains(name, "resize_") || contains(name, "fill_"))
    return "allocate and fill";
  return "other";
}

OpProfile::OpProfile() {
  g_sink = &by_class_;
  g_names = &by_name_;
  handle_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION, at::RecordScope::USER_SCOPE}));
}

OpProfile::~OpProfile() {
  at::removeCallback(handle_);
  g_sink = nullptr;
  g_names = nullptr;
  t_stack.clear();
}

std::string OpProfile::top_names(int steps, std::size_t count) const {
  std::vector<std::pair<double, std::string>> rows;
  for (const auto& [name, seconds] : by_name_) rows.emplace_back(seconds, name);
  std::sort(rows.rbegin(), rows.rend());
  std::string out;
  for (std::size_t i = 0; i < rows.size() && i < count; ++i) {
    char line[256];
    std::snprintf(line, sizeof line, "%10.2f ms  %s\n", 1e3 * rows[i].first / steps, rows[i].second.c_str());
    out += line;
  }
  return out;
}

std::string OpProfile::json(int steps) const {
  std::string out = "{";
  for (const auto& [name, seconds] : by_class_) {
    if (out.size() > 1) out += ", ";
    char value[64];
    std::snprintf(value, sizeof value, "%.6f", seconds / steps);
    out += "\"" + name + "\": " + value;
  }
  return out + "}";
}

}  // namespace medsynth::bench

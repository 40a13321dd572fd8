// Where a step's time goes, by operator class (issue 51: "profile first, on
// both sides"): ATen's RecordFunction hooks on this thread time every
// operator and autograd node, and each one's self time (its own time less
// that of the operators it called) is added to its class. Operators inside
// a RECORD_USER_SCOPE("optimizer") count as the optimizer whatever they are.
// tests/bench/monai_maisi_step_bench.py --profile classes torch.profiler's
// events with the same rules (op_class there), so the two tables compare.
// The hooks cost time of their own: the table is the composition of a step,
// not its speed.
#pragma once

#include <ATen/record_function.h>

#include <map>
#include <string>

namespace medsynth::bench {

class OpProfile {
 public:
  OpProfile();
  ~OpProfile();
  OpProfile(const OpProfile&) = delete;
  OpProfile& operator=(const OpProfile&) = delete;

  // Seconds of self time per class ("convolution", "group_norm", ...).
  const std::map<std::string, double>& seconds_by_class() const { return by_class_; }
  // {"convolution": s, ...} for one JSON line, each divided by `steps`.
  std::string json(int steps) const;
  // The `count` operators of most self time, ms per step, one per line.
  std::string top_names(int steps, std::size_t count) const;

 private:
  at::CallbackHandle handle_ = 0;
  std::map<std::string, double> by_class_;
  std::map<std::string, double> by_name_;
};

// The class of an operator or autograd node name, the rules both sides use.
std::string op_class(const std::string& name, bool in_optimizer);

}  // namespace medsynth::bench

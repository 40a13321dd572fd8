#include "eval/parallel_map.hpp"

#include <string>

#include "core/error.hpp"
#include "dist/process_group.hpp"

namespace medsynth {

int ParallelMap::rank() const { return dist_ ? dist_->rank() : 0; }
int ParallelMap::world_size() const { return dist_ ? dist_->world_size() : 1; }

std::vector<double> ParallelMap::values(std::size_t count, const std::function<double(std::size_t)>& f) const {
  std::vector<double> out(count, 0.0);
  const auto r = static_cast<std::size_t>(rank()), w = static_cast<std::size_t>(world_size());
  for (std::size_t i = r; i < count; i += w) out[i] = f(i);
  if (dist_ && count > 0) out = dist_->all_reduce_sum(out, "evaluation");
  return out;
}

std::vector<std::vector<double>> ParallelMap::rows(std::size_t count, std::size_t width,
                                                   const std::function<std::vector<double>(std::size_t)>& row) const {
  std::vector<double> flat(count * width, 0.0);
  const auto r = static_cast<std::size_t>(rank()), w = static_cast<std::size_t>(world_size());
  for (std::size_t i = r; i < count; i += w) {
    const auto v = row(i);
    if (v.size() != width) throw RuntimeError("evaluation: row " + std::to_string(i) + " has " + std::to_string(v.size()) + " values, expected " + std::to_string(width));
    std::copy(v.begin(), v.end(), flat.begin() + static_cast<std::ptrdiff_t>(i * width));
  }
  if (dist_ && !flat.empty()) flat = dist_->all_reduce_sum(flat, "evaluation features");
  std::vector<std::vector<double>> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i].assign(flat.begin() + static_cast<std::ptrdiff_t>(i * width), flat.begin() + static_cast<std::ptrdiff_t>((i + 1) * width));
  return out;
}

}  // namespace medsynth

// Spreads an evaluation's independent computations (MS-SSIM of volume pairs,
// feature rows) over the ranks of a process group: rank r computes the items
// i with i mod world == r, and a sum over ranks gives every rank all results
// (each item is computed once, the others contribute zeros). Without a group
// everything runs here. Results are the same numbers either way.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace medsynth {

class DistContext;

class ParallelMap {
 public:
  explicit ParallelMap(DistContext* dist = nullptr) : dist_(dist) {}

  // [f(0), ..., f(count - 1)] on every rank.
  std::vector<double> values(std::size_t count, const std::function<double(std::size_t)>& f) const;
  // Rows of `width` values: row(i) must return exactly `width` values.
  std::vector<std::vector<double>> rows(std::size_t count, std::size_t width,
                                        const std::function<std::vector<double>(std::size_t)>& row) const;
  int rank() const;
  int world_size() const;

 private:
  DistContext* dist_;
};

}  // namespace medsynth

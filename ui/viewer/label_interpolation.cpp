#include "ui/viewer/label_interpolation.hpp"

#include <cmath>
#include <limits>

namespace medsynth::ui {
namespace {

// Large enough to stand for "no mask pixel", small enough that its square
// plus a grid's squared extent stays finite.
constexpr double k_far = 1e15;

// Squared distances along one line: out[p] = min_q (s (p - q))^2 + f[q].
void squared_distance_1d(const std::vector<double>& f, double s, std::vector<double>& out) {
  const std::size_t n = f.size();
  std::vector<std::size_t> v(n);  // the parabolas of the lower envelope
  std::vector<double> z(n + 1);   // where each starts to be the lowest
  const double s2 = s * s;
  std::size_t k = 0;
  v[0] = 0;
  z[0] = -std::numeric_limits<double>::infinity();
  z[1] = std::numeric_limits<double>::infinity();
  const auto cross = [&](std::size_t q, std::size_t r) {
    const double dq = static_cast<double>(q), dr = static_cast<double>(r);
    return ((f[q] + s2 * dq * dq) - (f[r] + s2 * dr * dr)) / (2.0 * s2 * (dq - dr));
  };
  for (std::size_t q = 1; q < n; ++q) {
    double at = cross(q, v[k]);
    while (at <= z[k]) {
      --k;
      at = cross(q, v[k]);
    }
    ++k;
    v[k] = q;
    z[k] = at;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  k = 0;
  for (std::size_t p = 0; p < n; ++p) {
    while (z[k + 1] < static_cast<double>(p)) ++k;
    const double d = s * (static_cast<double>(p) - static_cast<double>(v[k]));
    out[p] = d * d + f[v[k]];
  }
}

}  // namespace

std::vector<double> distance_to_mask(const std::vector<char>& mask, const SliceGrid& grid) {
  const std::size_t w = grid.width, h = grid.height;
  std::vector<double> squared(grid.count());
  for (std::size_t i = 0; i < squared.size(); ++i) squared[i] = mask[i] ? 0.0 : k_far * k_far;
  if (w == 0 || h == 0) return squared;
  std::vector<double> line(h), done(h);
  for (std::size_t x = 0; x < w; ++x) {  // columns
    for (std::size_t y = 0; y < h; ++y) line[y] = squared[y * w + x];
    squared_distance_1d(line, grid.sy, done);
    for (std::size_t y = 0; y < h; ++y) squared[y * w + x] = done[y];
  }
  line.resize(w);
  done.resize(w);
  for (std::size_t y = 0; y < h; ++y) {  // rows
    for (std::size_t x = 0; x < w; ++x) line[x] = squared[y * w + x];
    squared_distance_1d(line, grid.sx, done);
    for (std::size_t x = 0; x < w; ++x) squared[y * w + x] = done[x];
  }
  for (double& d : squared) d = std::sqrt(d);
  return squared;
}

std::vector<double> signed_distance(const std::vector<char>& mask, const SliceGrid& grid) {
  std::vector<char> outside(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) outside[i] = mask[i] ? 0 : 1;
  const std::vector<double> to_inside = distance_to_mask(mask, grid);
  const std::vector<double> to_outside = distance_to_mask(outside, grid);
  std::vector<double> out(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) out[i] = mask[i] ? -to_outside[i] : to_inside[i];
  return out;
}

std::vector<char> interpolated_mask(const std::vector<double>& from_distance, const std::vector<double>& to_distance,
                                    double t) {
  std::vector<char> out(from_distance.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (1.0 - t) * from_distance[i] + t * to_distance[i] < 0.0;
  return out;
}

}  // namespace medsynth::ui

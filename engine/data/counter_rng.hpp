// Counter-based random numbers for the data pipeline: a generator is keyed on
// a tuple such as (base_seed, epoch, position) instead of being advanced by
// whoever happens to draw first. Used by the phantoms, the dataset's phantom
// seeds and the batch loader, so that results are bit-identical whatever the
// number of threads, the timing, or the batch an epoch is resumed at.
// Portable: only integer mixing (SplitMix64) and our own float conversion, no
// std:: distributions (whose output differs between standard libraries).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <utility>

namespace medsynth {

// SplitMix64's finaliser: a bijection of 64-bit integers, so distinct inputs
// always give distinct outputs (the dataset relies on this to keep val phantom
// seeds apart from train ones).
inline constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Folds keys into one state; order matters ((1,2) and (2,1) differ).
inline constexpr std::uint64_t hash_keys(std::initializer_list<std::uint64_t> keys) {
  std::uint64_t h = 0x6A09E667F3BCC909ull;
  for (std::uint64_t k : keys) h = mix64(h ^ mix64(k));
  return h;
}

// A small stream generator (SplitMix64) started from hashed keys.
class CounterRng {
 public:
  explicit constexpr CounterRng(std::uint64_t state) : state_(state) {}
  CounterRng(std::initializer_list<std::uint64_t> keys) : state_(hash_keys(keys)) {}

  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n); n > 0. Lemire's multiply-shift (bias < 2^-64 * n, irrelevant here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Standard normal by Box-Muller (one value per call; keeps the stream simple).
  double normal() {
    const double u1 = (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Two independent standard normals from one Box-Muller draw.
  std::pair<double, double> normal_pair() {
    const double u1 = (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    return {r * std::cos(6.283185307179586 * u2), r * std::sin(6.283185307179586 * u2)};
  }

 private:
  std::uint64_t state_;
};

}  // namespace medsynth

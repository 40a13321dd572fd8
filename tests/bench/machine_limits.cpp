#include "machine_limits.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace medsynth::bench {
namespace {

using Clock = std::chrono::steady_clock;
typedef float v16f __attribute__((vector_size(64)));

// 12 independent accumulators hide the FMA latency (4 cycles x 2 ports + slack).
float fma_kernel(long iterations, float seed) {
  v16f a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11;
  v16f m, c;
  for (int i = 0; i < 16; ++i) {
    m[i] = 0.999999f;
    c[i] = 1e-7f * (i + 1);
  }
  a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = a10 = a11 = m * seed;
  for (long it = 0; it < iterations; ++it) {
    a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
    a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;
  }
  v16f s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  float out = 0;
  for (int i = 0; i < 16; ++i) out += s[i];
  return out;
}

double peak_once(int threads, long iterations) {
  std::vector<std::thread> pool;
  std::vector<float> sink(threads);
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[t] = fma_kernel(iterations, 1.0f + t); });
  for (auto& th : pool) th.join();
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile float keep = sink[0];
  (void)keep;
  return 2.0 * 16 * 12 * iterations * threads / s / 1e9;
}

double triad_once(int threads, std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
  const std::size_t n = a.size();
  std::vector<std::thread> pool;
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      for (std::size_t i = lo; i < hi; ++i) a[i] = b[i] + 3.0f * c[i];
    });
  for (auto& th : pool) th.join();
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return 3.0 * n * sizeof(float) / s / 1e9;
}

std::string cpu_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

}  // namespace

MachineLimits measure_machine_limits(int threads) {
  MachineLimits m;
  m.threads = threads;
  m.cpu = cpu_field("model name");
  std::istringstream flags(cpu_field("flags"));
  std::set<std::string> wanted{"avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"};
  for (std::string f; flags >> f;)
    if (wanted.count(f)) m.flags += (m.flags.empty() ? "" : " ") + f;
  std::vector<double> peaks;
  for (int r = 0; r < 7; ++r) peaks.push_back(peak_once(threads, 20'000'000));
  std::sort(peaks.begin(), peaks.end());
  m.fp32_peak_gflops = peaks.back();  // a peak is the best observed
  std::vector<float> a(1 << 24), b(1 << 24, 1.0f), c(1 << 24, 2.0f);
  std::vector<double> bw;
  for (int r = 0; r < 7; ++r) bw.push_back(triad_once(threads, a, b, c));
  std::sort(bw.begin(), bw.end());
  m.triad_gb_per_s = bw.back();
  return m;
}

}  // namespace medsynth::bench

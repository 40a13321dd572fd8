#include "data/ct_phantom.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "data/counter_rng.hpp"

namespace medsynth {
namespace {

// Anatomy coordinates: x and y in units of half the smaller in-plane field of
// view, z in units of half the z field of view, all centred on the volume.
// Sizes of organs are fractions of those half-widths (a 256 mm field of view
// makes 1.0 = 128 mm), so a different field of view scales the torso to fit.

constexpr int k_supersample = 2;  // samples per voxel and axis (8 per voxel): the anti-aliasing
constexpr std::uint64_t k_anatomy_stream = 0x616E61746F6D79ull;  // "anatomy"
constexpr std::uint64_t k_noise_stream = 0x6E6F697365ull;        // "noise"

double sq(double v) { return v * v; }

struct Ellipsoid {
  double cx, cy, cz, rx, ry, rz;
};

struct Tube {
  std::array<double, 3> a, b;
  double r;
};

// A closed interval of x; empty when a > b.
struct Span {
  double a = 1.0, b = 0.0;
  bool empty() const { return !(a <= b); }
};

Span intersect(Span s, Span t) { return {std::max(s.a, t.a), std::min(s.b, t.b)}; }

// The x interval inside an ellipse row whose remaining quadratic budget is q.
Span ellipse_span(double cx, double rx, double q) {
  if (!(q > 0.0)) return {};
  const double w = rx * std::sqrt(q);
  return {cx - w, cx + w};
}

Span ellipsoid_span(const Ellipsoid& e, double y, double z) {
  return ellipse_span(e.cx, e.rx, 1.0 - sq((y - e.cy) / e.ry) - sq((z - e.cz) / e.rz));
}

// Hounsfield units of every tissue, drawn per seed.
struct Tissues {
  float air, fat, soft, lung, vessel, heart, liver, kidney, gas, disc, csf, cancellous, cortical, rib;
};

struct Anatomy {
  Tissues hu;
  double body_rx, body_ry, body_cy, body_z_end, fat_thickness;
  Ellipsoid lungs[2], heart, liver, kidneys[2];
  std::vector<Ellipsoid> gas;
  std::vector<Tube> vessels[2];
  double spine_cy, spine_rx, spine_ry, vertebra_period, vertebra_phase, disc_fraction;
  double canal_cy, canal_r, lamina_t, process_cy, process_rx, process_ry;
  std::vector<double> rib_z;
  double rib_drop, rib_half_z, rib_rho0, rib_rho1;
};

// The body narrows towards the shoulders and the pelvis.
double body_taper(double z) {
  const double a = std::abs(z);
  return a <= 0.7 ? 1.0 : 1.0 - 0.12 * sq((a - 0.7) / 0.3);
}

Anatomy make_anatomy(std::uint64_t seed) {
  CounterRng rng({seed, k_anatomy_stream});
  auto rel = [&](double v, double f) { return v * (1.0 + rng.uniform(-f, f)); };
  auto near = [&](double v, double d) { return v + rng.uniform(-d, d); };
  auto hu = [&](double v, double d) { return static_cast<float>(near(v, d)); };

  Anatomy A;
  A.hu = {-1000.0f,         hu(-100, 10), hu(40, 5),  hu(-850, 20),  hu(40, 10),
          hu(45, 5),        hu(60, 5),    hu(30, 5),  hu(-950, 20),  hu(80, 10),
          hu(10, 5),        hu(700, 40),  hu(950, 40), hu(850, 50)};
  A.body_rx = rel(0.90, 0.05);
  A.body_ry = rel(0.65, 0.07);
  A.body_cy = near(0.0, 0.02);
  A.body_z_end = near(0.92, 0.04);
  A.fat_thickness = rel(0.08, 0.35);

  // LPS: the patient's right is -x, anterior is -y, superior is +z.
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? -1.0 : 1.0;
    A.lungs[side] = {sign * near(0.36, 0.03), near(-0.02, 0.03), near(0.44, 0.04),
                     rel(0.30, 0.08),         rel(0.40, 0.08),   rel(0.42, 0.08)};
  }
  A.heart = {near(0.10, 0.04), near(-0.15, 0.04), near(0.20, 0.04), rel(0.24, 0.1), rel(0.20, 0.1), rel(0.20, 0.1)};
  A.liver = {near(-0.33, 0.04), near(-0.02, 0.04), near(-0.05, 0.05), rel(0.36, 0.08), rel(0.33, 0.08), rel(0.30, 0.08)};
  A.kidneys[0] = {near(-0.27, 0.03), near(0.28, 0.03), near(-0.45, 0.04), rel(0.10, 0.12), rel(0.12, 0.12), rel(0.17, 0.12)};
  A.kidneys[1] = {near(0.27, 0.03), near(0.28, 0.03), near(-0.40, 0.04), rel(0.10, 0.12), rel(0.12, 0.12), rel(0.17, 0.12)};

  const int gas_count = 2 + static_cast<int>(rng.below(3));
  for (int i = 0; i < gas_count; ++i) {
    A.gas.push_back({rng.uniform(-0.4, 0.4), rng.uniform(-0.4, -0.1), rng.uniform(-0.8, -0.3),
                     rng.uniform(0.03, 0.07), rng.uniform(0.03, 0.07), rng.uniform(0.03, 0.07)});
  }

  // Vessels fan out from each hilum (the medial side of the lung) to points inside it.
  for (int side = 0; side < 2; ++side) {
    const Ellipsoid& l = A.lungs[side];
    const double medial = l.cx > 0 ? -1.0 : 1.0;
    const std::array<double, 3> hilum{l.cx + medial * 0.6 * l.rx, l.cy + 0.05, l.cz};
    for (int i = 0; i < 5; ++i) {
      const double theta = rng.uniform(0.0, 6.283185307179586);
      const double dz = rng.uniform(-0.9, 0.9);
      const double t = rng.uniform(0.5, 0.9);
      const double planar = std::sqrt(1.0 - dz * dz);
      const std::array<double, 3> end{l.cx + t * l.rx * planar * std::cos(theta),
                                      l.cy + t * l.ry * planar * std::sin(theta), l.cz + t * l.rz * dz};
      A.vessels[side].push_back({hilum, end, rng.uniform(0.012, 0.022)});
    }
  }

  A.spine_cy = near(0.30, 0.03);
  A.spine_rx = rel(0.11, 0.1);
  A.spine_ry = rel(0.09, 0.1);
  A.vertebra_period = rel(0.20, 0.05);
  A.vertebra_phase = rng.uniform(0.0, A.vertebra_period);
  A.disc_fraction = rel(0.22, 0.1);
  A.canal_r = rel(0.045, 0.1);
  A.lamina_t = rel(0.03, 0.1);
  A.canal_cy = A.spine_cy + A.spine_ry + 0.055;
  A.process_cy = A.canal_cy + A.canal_r + A.lamina_t + 0.035;
  A.process_rx = 0.022;
  A.process_ry = 0.045;

  const double lung_top = std::max(A.lungs[0].cz + A.lungs[0].rz, A.lungs[1].cz + A.lungs[1].rz);
  const double rib_step = rel(0.13, 0.05);
  for (double z = near(0.10, 0.02); z < lung_top - 0.05; z += rib_step) A.rib_z.push_back(z);
  A.rib_drop = rel(0.14, 0.1);
  A.rib_half_z = rel(0.03, 0.1);
  A.rib_rho0 = 0.84;
  A.rib_rho1 = 0.93;
  return A;
}

// One row of samples along x: sample s lies at x0 + s * dx.
class RowRaster {
 public:
  RowRaster(float* values, int count, double x0, double dx) : v_(values), n_(count), x0_(x0), dx_(dx) {}

  // Samples [lo, hi) whose x lies in the span.
  std::pair<int, int> range(Span s) const {
    if (s.empty()) return {0, 0};
    const double lo = std::ceil((s.a - x0_) / dx_);
    const double hi = std::floor((s.b - x0_) / dx_) + 1.0;
    return {static_cast<int>(std::clamp(lo, 0.0, double(n_))), static_cast<int>(std::clamp(hi, 0.0, double(n_)))};
  }
  void fill(int lo, int hi, float hu) {
    for (int s = lo; s < hi; ++s) v_[s] = hu;
  }
  void paint(Span s, float hu) {
    auto [lo, hi] = range(s);
    fill(lo, hi, hu);
  }
  double x(int s) const { return x0_ + s * dx_; }
  int count() const { return n_; }

 private:
  float* v_;
  int n_;
  double x0_, dx_;
};

double segment_distance_sq(const Tube& t, double x, double y, double z) {
  const double abx = t.b[0] - t.a[0], aby = t.b[1] - t.a[1], abz = t.b[2] - t.a[2];
  const double apx = x - t.a[0], apy = y - t.a[1], apz = z - t.a[2];
  const double len2 = abx * abx + aby * aby + abz * abz;
  const double u = len2 > 0 ? std::clamp((apx * abx + apy * aby + apz * abz) / len2, 0.0, 1.0) : 0.0;
  return sq(apx - u * abx) + sq(apy - u * aby) + sq(apz - u * abz);
}

// Paints the tissues of row (y, z), lowest precedence first.
void paint_row(const Anatomy& A, double y, double z, RowRaster& row) {
  row.fill(0, row.count(), A.hu.air);
  if (std::abs(z) > A.body_z_end) return;
  const double taper = body_taper(z);
  const double brx = A.body_rx * taper, bry = A.body_ry * taper;
  const double yc = y - A.body_cy;
  const Span body = ellipse_span(0.0, brx, 1.0 - sq(yc / bry));
  if (body.empty()) return;
  row.paint(body, A.hu.fat);

  const double irx = brx - A.fat_thickness, iry = bry - A.fat_thickness;
  const Span inner = ellipse_span(0.0, irx, 1.0 - sq(yc / iry));
  row.paint(inner, A.hu.soft);
  // Lungs stay inside the rib cage.
  const Span cage = ellipse_span(0.0, A.rib_rho0 * irx, 1.0 - sq(yc / (A.rib_rho0 * iry)));

  for (int side = 0; side < 2; ++side) {
    auto [lo, hi] = row.range(intersect(ellipsoid_span(A.lungs[side], y, z), cage));
    if (lo >= hi) continue;
    row.fill(lo, hi, A.hu.lung);
    for (const Tube& t : A.vessels[side]) {
      if (y < std::min(t.a[1], t.b[1]) - t.r || y > std::max(t.a[1], t.b[1]) + t.r) continue;
      if (z < std::min(t.a[2], t.b[2]) - t.r || z > std::max(t.a[2], t.b[2]) + t.r) continue;
      for (int s = lo; s < hi; ++s) {
        if (segment_distance_sq(t, row.x(s), y, z) <= t.r * t.r) row.fill(s, s + 1, A.hu.vessel);
      }
    }
  }
  for (const Ellipsoid& g : A.gas) row.paint(intersect(ellipsoid_span(g, y, z), inner), A.hu.gas);
  row.paint(intersect(ellipsoid_span(A.heart, y, z), inner), A.hu.heart);
  row.paint(intersect(ellipsoid_span(A.liver, y, z), inner), A.hu.liver);
  for (const Ellipsoid& k : A.kidneys) row.paint(intersect(ellipsoid_span(k, y, z), inner), A.hu.kidney);

  // Spine: vertebral bodies (cortical shell, cancellous core) alternating with
  // discs along z; behind them the canal, the lamina ring and the spinous process.
  const double phase = (z - A.vertebra_phase) / A.vertebra_period;
  const bool disc = phase - std::floor(phase) < A.disc_fraction;
  const double vy = (y - A.spine_cy) / A.spine_ry;
  if (disc) {
    row.paint(intersect(ellipse_span(0.0, A.spine_rx, 1.0 - vy * vy), body), A.hu.disc);
  } else {
    row.paint(intersect(ellipse_span(0.0, A.spine_rx, 1.0 - vy * vy), body), A.hu.cortical);
    row.paint(intersect(ellipse_span(0.0, 0.72 * A.spine_rx, 1.0 - sq(vy / 0.72)), body), A.hu.cancellous);
    const double lamina_r = A.canal_r + A.lamina_t;
    row.paint(intersect(ellipse_span(0.0, lamina_r, 1.0 - sq((y - A.canal_cy) / lamina_r)), body), A.hu.cortical);
    row.paint(intersect(ellipse_span(0.0, A.process_rx, 1.0 - sq((y - A.process_cy) / A.process_ry)), body),
              A.hu.cortical);
  }
  row.paint(intersect(ellipse_span(0.0, A.canal_r, 1.0 - sq((y - A.canal_cy) / A.canal_r)), body), A.hu.csf);

  // Ribs: bands of the cage ring that slope down towards the front and leave
  // a gap at the sternum (costal cartilage). Within the thin ring the angle
  // depends on y alone, which keeps each rib an interval of x.
  if (inner.empty()) return;
  const double rho_mid = 0.5 * (A.rib_rho0 + A.rib_rho1);
  const double cos_phi = std::clamp((yc / iry) / rho_mid, -1.0, 1.0);  // +1 posterior, -1 anterior
  if (cos_phi < -0.85) return;
  for (double zk : A.rib_z) {
    const double zc = zk - A.rib_drop * 0.5 * (1.0 - cos_phi);
    if (std::abs(z - zc) > A.rib_half_z) continue;
    auto [olo, ohi] = row.range(ellipse_span(0.0, A.rib_rho1 * irx, 1.0 - sq(yc / (A.rib_rho1 * iry))));
    auto [ilo, ihi] = row.range(ellipse_span(0.0, A.rib_rho0 * irx, 1.0 - sq(yc / (A.rib_rho0 * iry))));
    if (ilo >= ihi) {
      row.fill(olo, ohi, A.hu.rib);
    } else {
      row.fill(olo, ilo, A.hu.rib);
      row.fill(ihi, ohi, A.hu.rib);
    }
    break;
  }
}

// [1 2 1]/4 along one axis (a Gaussian of sigma ~0.7 voxel): the scanner's
// point-spread function on top of the supersampled edges.
void blur_axis(const std::vector<float>& in, std::vector<float>& out, const std::array<std::int64_t, 3>& n, int axis) {
  const std::int64_t stride = axis == 0 ? 1 : axis == 1 ? n[0] : n[0] * n[1];
  const std::int64_t len = n[axis];
  at::parallel_for(0, n[2], 1, [&](std::int64_t z0, std::int64_t z1) {
    for (std::int64_t z = z0; z < z1; ++z) {
      for (std::int64_t y = 0; y < n[1]; ++y) {
        for (std::int64_t x = 0; x < n[0]; ++x) {
          const std::int64_t i = (z * n[1] + y) * n[0] + x;
          const std::int64_t c = axis == 0 ? x : axis == 1 ? y : z;
          const float prev = in[c > 0 ? i - stride : i];
          const float next = in[c + 1 < len ? i + stride : i];
          out[i] = 0.25f * prev + 0.5f * in[i] + 0.25f * next;
        }
      }
    }
  });
}

}  // namespace

void validate_phantom_options(const PhantomOptions& o) {
  std::vector<FieldError> errors;
  double voxels = 1.0;
  for (int a = 0; a < 3; ++a) {
    if (o.size[a] < 1) errors.push_back({"data.phantom_size", "every size must be >= 1 (got " + std::to_string(o.size[a]) + ")"});
    if (!(o.spacing[a] > 0.0) || !std::isfinite(o.spacing[a]))
      errors.push_back({"data.phantom_spacing", "every spacing must be finite and > 0 (got " + std::to_string(o.spacing[a]) + ")"});
    voxels *= std::max(o.size[a], 1);
  }
  if (voxels > double(1 << 28)) errors.push_back({"data.phantom_size", "more than 2^28 voxels"});
  if (!(o.noise_hu >= 0.0) || !std::isfinite(o.noise_hu))
    errors.push_back({"data.noise_hu", "must be finite and >= 0 (got " + std::to_string(o.noise_hu) + ")"});
  if (!errors.empty()) throw ConfigError(std::move(errors), "phantom");
}

Volume make_ct_phantom(std::uint64_t seed, const PhantomOptions& options) {
  validate_phantom_options(options);
  const Anatomy A = make_anatomy(seed);
  const std::array<std::int64_t, 3> n{options.size[0], options.size[1], options.size[2]};
  const auto& sp = options.spacing;
  Volume volume = make_volume({std::size_t(n[0]), std::size_t(n[1]), std::size_t(n[2])}, sp);
  for (int a = 0; a < 3; ++a) volume.origin[a] = -0.5 * double(n[a] - 1) * sp[a];

  const double half_xy = 0.5 * std::min(n[0] * sp[0], n[1] * sp[1]);  // mm per anatomy unit in x, y
  const double half_z = 0.5 * n[2] * sp[2];                            // mm per anatomy unit in z
  constexpr int S = k_supersample;
  // Sample s of an axis with n voxels sits at ((s + 0.5) / S - n / 2) voxels from the centre.
  auto coord = [&](std::int64_t s, int axis, double unit) {
    return ((double(s) + 0.5) / S - 0.5 * double(n[axis])) * sp[axis] / unit;
  };

  std::vector<float> sharp(volume.voxel_count());
  at::parallel_for(0, n[2], 1, [&](std::int64_t z0, std::int64_t z1) {
    std::vector<float> samples(static_cast<std::size_t>(n[0] * S));
    std::vector<double> acc(static_cast<std::size_t>(n[0]));
    RowRaster row(samples.data(), int(n[0] * S), coord(0, 0, half_xy), sp[0] / S / half_xy);
    for (std::int64_t z = z0; z < z1; ++z) {
      for (std::int64_t y = 0; y < n[1]; ++y) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int sz = 0; sz < S; ++sz) {
          for (int sy = 0; sy < S; ++sy) {
            paint_row(A, coord(y * S + sy, 1, half_xy), coord(z * S + sz, 2, half_z), row);
            for (std::int64_t s = 0; s < n[0] * S; ++s) acc[std::size_t(s / S)] += samples[std::size_t(s)];
          }
        }
        float* out = &sharp[std::size_t((z * n[1] + y) * n[0])];
        for (std::int64_t x = 0; x < n[0]; ++x) out[x] = static_cast<float>(acc[std::size_t(x)] / (S * S * S));
      }
    }
  });

  std::vector<float> tmp(sharp.size());
  for (int axis = 0; axis < 3; ++axis) {
    if (n[axis] < 2) continue;
    blur_axis(sharp, tmp, n, axis);
    sharp.swap(tmp);
  }

  // Noise keyed on the voxel index (one Box-Muller pair per two voxels):
  // independent of how voxels are split among threads.
  const double sigma = options.noise_hu;
  const std::int64_t count = std::int64_t(sharp.size());
  float* dst = volume.voxels.data();
  if (sigma == 0.0) {
    std::copy(sharp.begin(), sharp.end(), dst);
    return volume;
  }
  const std::uint64_t noise_key = hash_keys({seed, k_noise_stream});
  at::parallel_for(0, (count + 1) / 2, 2048, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t pair = b; pair < e; ++pair) {
      CounterRng rng(mix64(noise_key + std::uint64_t(pair)));
      const auto [n0, n1] = rng.normal_pair();
      const std::int64_t i = 2 * pair;
      dst[i] = static_cast<float>(double(sharp[std::size_t(i)]) + sigma * n0);
      if (i + 1 < count) dst[i + 1] = static_cast<float>(double(sharp[std::size_t(i + 1)]) + sigma * n1);
    }
  });
  return volume;
}

}  // namespace medsynth

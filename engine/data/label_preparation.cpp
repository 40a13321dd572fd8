#include "data/label_preparation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "data/ct_body_mask.hpp"
#include "data/label_vocabulary.hpp"
#include "data/spatial_transforms.hpp"

namespace medsynth {

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Sets every pixel of one axial slice inside the convex hull of its masked
// pixels (Andrew's monotone chain over the pixel centres).
void fill_slice_hull(std::vector<std::uint8_t>& mask, std::size_t nx, std::size_t ny, std::size_t z) {
  using Point = std::array<long long, 2>;
  const std::size_t base = z * nx * ny;
  std::vector<Point> points;
  for (std::size_t y = 0; y < ny; ++y)
    for (std::size_t x = 0; x < nx; ++x)
      if (mask[base + y * nx + x]) points.push_back({static_cast<long long>(x), static_cast<long long>(y)});
  if (points.size() < 3) return;
  std::sort(points.begin(), points.end());
  const auto cross = [](const Point& o, const Point& a, const Point& b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  };
  std::vector<Point> hull(2 * points.size());
  std::size_t k = 0;
  for (const auto& p : points) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) --k;
    hull[k++] = p;
  }
  for (std::size_t i = points.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);  // counter-clockwise, the first point not repeated
  if (hull.size() < 3) return;
  // Row by row: a convex polygon meets a row in one span, from the edges that
  // cross it (a 512^2 slice in O(rows x edges), not O(pixels x edges)).
  for (std::size_t y = 0; y < ny; ++y) {
    const double row = static_cast<double>(y);
    double lo = static_cast<double>(nx), hi = -1.0;
    for (std::size_t i = 0; i < hull.size(); ++i) {
      const Point& a = hull[i];
      const Point& b = hull[(i + 1) % hull.size()];
      const double ya = static_cast<double>(a[1]), yb = static_cast<double>(b[1]);
      if (row < std::min(ya, yb) || row > std::max(ya, yb)) continue;
      const double xa = static_cast<double>(a[0]), xb = static_cast<double>(b[0]);
      if (ya == yb) {
        lo = std::min({lo, xa, xb});
        hi = std::max({hi, xa, xb});
      } else {
        const double x = xa + (row - ya) * (xb - xa) / (yb - ya);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    }
    if (hi < lo) continue;
    const auto first = static_cast<std::size_t>(std::max(0.0, std::ceil(lo - 1e-9)));
    const auto last = static_cast<std::size_t>(std::min(static_cast<double>(nx - 1), std::floor(hi + 1e-9)));
    for (std::size_t x = first; x <= last && x < nx; ++x) mask[base + y * nx + x] = 1;
  }
}

// Label 200 on every unlabelled voxel inside the body; returns how it was outlined.
std::string add_body_envelope(Volume& label, const Volume* image, const std::string& source) {
  const std::size_t nx = label.size[0], ny = label.size[1], nz = label.size[2];
  std::vector<std::uint8_t> body(label.voxels.size(), 0);
  std::string how;
  if (image) {
    if (image->size != label.size)
      throw DataError(source, "the image for the body envelope is " + std::to_string(image->size[0]) + " x " +
                                  std::to_string(image->size[1]) + " x " + std::to_string(image->size[2]) +
                                  " voxels, the segmentation another grid; give the CT it was made from");
    body = ct_body_mask(*image);
    how = "the CT image (HU > -500, the table and other detached pieces removed, holes filled per axial slice)";
  } else {
    for (std::size_t i = 0; i < body.size(); ++i) body[i] = label.voxels[i] > 0;
    for (std::size_t z = 0; z < nz; ++z) fill_slice_hull(body, nx, ny, z);
    how = "the labels (each axial slice's convex hull; --image CT gives the body's own outline)";
  }
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i] && label.voxels[i] == 0.0f) label.voxels[i] = static_cast<float>(k_maisi_body_label);
  return how;
}

}  // namespace

std::vector<std::string> maisi_ct_grid_warnings(const std::array<std::size_t, 3>& size,
                                                const std::array<double, 3>& spacing) {
  static const char* axis[] = {"x", "y", "z"};
  std::vector<std::string> out;
  const auto in = [](std::size_t v, std::initializer_list<std::size_t> allowed) {
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  };
  if (size[0] != size[1])
    out.push_back("x and y sizes differ (" + std::to_string(size[0]) + ", " + std::to_string(size[1]) +
                  "): NV-Generate's CT networks take equal ones");
  for (int a = 0; a < 2; ++a)
    if (!in(size[a], {256, 384, 512}))
      out.push_back(std::string(axis[a]) + " size " + std::to_string(size[a]) +
                    " is not one of NV-Generate's CT sizes 256, 384, 512");
  if (!in(size[2], {128, 256, 384, 512, 640, 768}))
    out.push_back("z size " + std::to_string(size[2]) + " is not one of NV-Generate's CT sizes 128, 256, ..., 768");
  if (spacing[0] != spacing[1])
    out.push_back("x and y spacings differ (" + number_text(spacing[0]) + ", " + number_text(spacing[1]) +
                  " mm): NV-Generate's CT networks take equal ones");
  for (int a = 0; a < 2; ++a)
    if (spacing[a] < 0.5 || spacing[a] > 3.0)
      out.push_back(std::string(axis[a]) + " spacing " + number_text(spacing[a]) +
                    " mm is outside NV-Generate's CT range 0.5-3.0 mm");
  if (spacing[2] < 0.5 || spacing[2] > 5.0)
    out.push_back("z spacing " + number_text(spacing[2]) + " mm is outside NV-Generate's CT range 0.5-5.0 mm");
  for (int a = 0; a < 2; ++a) {
    const double fov = static_cast<double>(size[a]) * spacing[a];
    if (fov < 384.0)
      out.push_back(std::string(axis[a]) + " field of view " + number_text(fov) + " mm is under " +
                    (fov < 256.0 ? "256 mm, NV-Generate's least"
                                 : "384 mm, NV-Generate's recommendation for the body (256 mm is enough for a head)"));
  }
  return out;
}

PreparedLabel prepare_label(const Volume& segmentation, const std::string& source,
                            const LabelPreparationOptions& options, const Volume* image) {
  const LabelMapping mapping = label_mapping(options.from);
  PreparedLabel out;
  out.label = segmentation;
  std::map<int, std::int64_t> unknown;
  bool has_body = false;
  for (float& v : out.label.voxels) {
    if (v == 0.0f) continue;
    if (!(std::isfinite(v) && v == std::round(v) && v > 0 && v < 65536.0f))
      throw DataError(source, "has a voxel of value " + number_text(v) + "; a label map holds whole numbers 0-65535");
    const int id = static_cast<int>(v);
    const auto it = mapping.labels.find(id);
    if (it == mapping.labels.end()) {
      // MAISI's envelope kept where a tool already wrote it; others are not in the table.
      if (id == k_maisi_body_label) {
        has_body = true;
        continue;
      }
      ++unknown[id];
      v = 0.0f;
    } else if (it->second.maisi == 0) {
      ++out.dropped[id];
      v = 0.0f;
    } else {
      v = static_cast<float>(it->second.maisi);
    }
  }
  for (const auto& [id, voxels] : unknown) {
    out.dropped[id] += voxels;
    out.warnings.push_back("label " + std::to_string(id) + " (" + std::to_string(voxels) + " voxels) is not in " +
                           mapping.source + ": set to 0");
  }
  for (const auto& [id, entry] : mapping.labels)
    if (entry.maisi == 0 && out.dropped.count(id) && !unknown.count(id))
      out.warnings.push_back("label " + std::to_string(id) + " (" + entry.name + ", " +
                             std::to_string(out.dropped[id]) + " voxels) has no MAISI CT class: set to 0");
  if (!has_body) out.envelope = add_body_envelope(out.label, image, source);

  if (options.spacing) out.label = resample_to_spacing(out.label, *options.spacing, Interpolation::nearest, source);
  if (options.size) out.label = crop_or_pad(out.label, *options.size);
  for (const float v : out.label.voxels)
    if (v != 0.0f) ++out.classes[static_cast<int>(v)];
  const auto grid = maisi_ct_grid_warnings(out.label.size, out.label.spacing);
  out.warnings.insert(out.warnings.end(), grid.begin(), grid.end());
  return out;
}

}  // namespace medsynth

#include "ui/viewer/label_edits.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ui/viewer/label_interpolation.hpp"

namespace medsynth::ui {

namespace {

// The two in-plane axes of a slice normal to `normal_axis`.
std::array<int, 2> plane_axes(int normal_axis) {
  switch (normal_axis) {
    case 0:
      return {1, 2};
    case 1:
      return {0, 2};
    default:
      return {0, 1};
  }
}

std::size_t offset_of(const Volume& v, const LabelVoxel& x) {
  return v.index(static_cast<std::size_t>(x[0]), static_cast<std::size_t>(x[1]), static_cast<std::size_t>(x[2]));
}

// The voxel at in-plane pixel (i, j) of slice `index` normal to `normal_axis`.
LabelVoxel slice_voxel(int normal_axis, std::int64_t index, std::size_t i, std::size_t j) {
  const auto [a, b] = plane_axes(normal_axis);
  LabelVoxel v{};
  v[static_cast<std::size_t>(normal_axis)] = index;
  v[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(i);
  v[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(j);
  return v;
}

}  // namespace

LabelEdits::LabelEdits(std::shared_ptr<Volume> labels) : labels_(std::move(labels)) {
  if (!labels_) throw std::invalid_argument("LabelEdits: no label map");
  if (labels_->voxels.size() != labels_->voxel_count())
    throw std::invalid_argument("LabelEdits: the label map's voxels do not match its size");
}

bool LabelEdits::inside(const LabelVoxel& v) const {
  for (int a = 0; a < 3; ++a)
    if (v[static_cast<std::size_t>(a)] < 0 ||
        v[static_cast<std::size_t>(a)] >= static_cast<std::int64_t>(labels_->size[static_cast<std::size_t>(a)]))
      return false;
  return true;
}

void LabelEdits::set(std::size_t offset, float value, std::vector<std::size_t>& changed) {
  float& voxel = labels_->voxels[offset];
  if (voxel == value) return;
  open_.changes.push_back({offset, voxel, value});
  voxel = value;
  changed.push_back(offset);
}

void LabelEdits::begin_stroke() {
  close_step();
  in_stroke_ = true;
}

void LabelEdits::end_stroke() {
  in_stroke_ = false;
  close_step();
}

void LabelEdits::close_step() {
  if (open_.changes.empty()) return;
  open_.revision_before = revision_;
  open_.revision_after = next_revision_++;
  revision_ = open_.revision_after;
  undo_.push_back(std::move(open_));
  open_ = Step{};
  if (undo_.size() > k_max_undo_steps) undo_.erase(undo_.begin());
  redo_.clear();  // a new edit forks the history
}

std::vector<std::size_t> LabelEdits::paint(int normal_axis, const LabelVoxel& center, double radius_mm, float value) {
  std::vector<std::size_t> changed;
  if (!inside(center) || normal_axis < 0 || normal_axis > 2) return changed;
  const auto [a, b] = plane_axes(normal_axis);
  const double sa = labels_->spacing[static_cast<std::size_t>(a)];
  const double sb = labels_->spacing[static_cast<std::size_t>(b)];
  radius_mm = std::max(radius_mm, 0.0);
  const auto reach_a = static_cast<std::int64_t>(std::floor(radius_mm / sa));
  const auto reach_b = static_cast<std::int64_t>(std::floor(radius_mm / sb));
  for (std::int64_t db = -reach_b; db <= reach_b; ++db)
    for (std::int64_t da = -reach_a; da <= reach_a; ++da) {
      const double ma = static_cast<double>(da) * sa;
      const double mb = static_cast<double>(db) * sb;
      if (ma * ma + mb * mb > radius_mm * radius_mm) continue;
      LabelVoxel v = center;
      v[static_cast<std::size_t>(a)] += da;
      v[static_cast<std::size_t>(b)] += db;
      if (inside(v)) set(offset_of(*labels_, v), value, changed);
    }
  if (!in_stroke_) close_step();
  return changed;
}

std::vector<std::size_t> LabelEdits::fill(int normal_axis, const LabelVoxel& seed, float value) {
  std::vector<std::size_t> changed;
  if (!inside(seed) || normal_axis < 0 || normal_axis > 2) return changed;
  const float region = labels_->voxels[offset_of(*labels_, seed)];
  if (region == value) return changed;
  const auto [a, b] = plane_axes(normal_axis);
  // Scan-free 4-connected flood fill with an explicit stack: a slice of a
  // 512x512 grid is 262 144 voxels, too deep for recursion.
  std::vector<LabelVoxel> stack{seed};
  while (!stack.empty()) {
    const LabelVoxel v = stack.back();
    stack.pop_back();
    if (!inside(v)) continue;
    const std::size_t offset = offset_of(*labels_, v);
    if (labels_->voxels[offset] != region) continue;
    set(offset, value, changed);
    for (const auto& [axis, step] : {std::pair{a, 1}, std::pair{a, -1}, std::pair{b, 1}, std::pair{b, -1}}) {
      LabelVoxel n = v;
      n[static_cast<std::size_t>(axis)] += step;
      stack.push_back(n);
    }
  }
  if (!in_stroke_) close_step();
  return changed;
}

std::vector<std::size_t> LabelEdits::undo() {
  close_step();
  std::vector<std::size_t> changed;
  if (undo_.empty()) return changed;
  Step step = std::move(undo_.back());
  undo_.pop_back();
  for (auto it = step.changes.rbegin(); it != step.changes.rend(); ++it) {
    labels_->voxels[it->offset] = it->before;
    changed.push_back(it->offset);
  }
  revision_ = step.revision_before;
  redo_.push_back(std::move(step));
  return changed;
}

std::vector<std::size_t> LabelEdits::redo() {
  std::vector<std::size_t> changed;
  if (redo_.empty()) return changed;
  Step step = std::move(redo_.back());
  redo_.pop_back();
  for (const Change& c : step.changes) {
    labels_->voxels[c.offset] = c.after;
    changed.push_back(c.offset);
  }
  revision_ = step.revision_after;
  undo_.push_back(std::move(step));
  return changed;
}

int normal_index_axis(const Volume& volume, const std::array<double, 3>& world_normal) {
  int best = 2;
  double best_dot = -1.0;
  for (int axis = 0; axis < 3; ++axis) {
    // The direction matrix is row-major with the axes as columns.
    double dot = 0.0;
    for (int row = 0; row < 3; ++row)
      dot += volume.direction[static_cast<std::size_t>(row * 3 + axis)] * world_normal[static_cast<std::size_t>(row)];
    if (std::fabs(dot) > best_dot) {
      best_dot = std::fabs(dot);
      best = axis;
    }
  }
  return best;
}

std::vector<std::size_t> LabelEdits::paint_sphere(const LabelVoxel& center, double radius_mm, float value) {
  std::vector<std::size_t> changed;
  if (!inside(center)) return changed;
  radius_mm = std::max(radius_mm, 0.0);
  std::array<std::int64_t, 3> reach{};
  for (std::size_t a = 0; a < 3; ++a) reach[a] = static_cast<std::int64_t>(std::floor(radius_mm / labels_->spacing[a]));
  for (std::int64_t dz = -reach[2]; dz <= reach[2]; ++dz)
    for (std::int64_t dy = -reach[1]; dy <= reach[1]; ++dy)
      for (std::int64_t dx = -reach[0]; dx <= reach[0]; ++dx) {
        const double mx = static_cast<double>(dx) * labels_->spacing[0];
        const double my = static_cast<double>(dy) * labels_->spacing[1];
        const double mz = static_cast<double>(dz) * labels_->spacing[2];
        if (mx * mx + my * my + mz * mz > radius_mm * radius_mm) continue;
        const LabelVoxel v{center[0] + dx, center[1] + dy, center[2] + dz};
        if (inside(v)) set(offset_of(*labels_, v), value, changed);
      }
  if (!in_stroke_) close_step();
  return changed;
}

std::vector<char> LabelEdits::slice_mask(int normal_axis, std::int64_t index, float value) const {
  const auto [a, b] = plane_axes(normal_axis);
  const std::size_t w = labels_->size[static_cast<std::size_t>(a)], h = labels_->size[static_cast<std::size_t>(b)];
  std::vector<char> mask(w * h);
  for (std::size_t j = 0; j < h; ++j)
    for (std::size_t i = 0; i < w; ++i)
      mask[j * w + i] = labels_->voxels[offset_of(*labels_, slice_voxel(normal_axis, index, i, j))] == value;
  return mask;
}

std::vector<std::size_t> LabelEdits::fill_between_slices(int normal_axis, float value) {
  std::vector<std::size_t> changed;
  if (normal_axis < 0 || normal_axis > 2 || value == 0.0f) return changed;
  const auto [a, b] = plane_axes(normal_axis);
  const SliceGrid grid{labels_->size[static_cast<std::size_t>(a)], labels_->size[static_cast<std::size_t>(b)],
                       labels_->spacing[static_cast<std::size_t>(a)], labels_->spacing[static_cast<std::size_t>(b)]};
  std::vector<std::int64_t> painted;
  const auto depth = static_cast<std::int64_t>(labels_->size[static_cast<std::size_t>(normal_axis)]);
  for (std::int64_t k = 0; k < depth; ++k) {
    const auto mask = slice_mask(normal_axis, k, value);
    if (std::find(mask.begin(), mask.end(), 1) != mask.end()) painted.push_back(k);
  }
  const bool was_in_stroke = in_stroke_;
  in_stroke_ = true;  // every slice filled is one step
  for (std::size_t p = 0; p + 1 < painted.size(); ++p) {
    const std::int64_t k0 = painted[p], k1 = painted[p + 1];
    if (k1 - k0 < 2) continue;
    const auto from = signed_distance(slice_mask(normal_axis, k0, value), grid);
    const auto to = signed_distance(slice_mask(normal_axis, k1, value), grid);
    for (std::int64_t k = k0 + 1; k < k1; ++k) {
      const auto mask = interpolated_mask(from, to, static_cast<double>(k - k0) / static_cast<double>(k1 - k0));
      for (std::size_t j = 0; j < grid.height; ++j)
        for (std::size_t i = 0; i < grid.width; ++i) {
          if (!mask[j * grid.width + i]) continue;
          const std::size_t offset = offset_of(*labels_, slice_voxel(normal_axis, k, i, j));
          if (labels_->voxels[offset] == 0.0f) set(offset, value, changed);
        }
    }
  }
  in_stroke_ = was_in_stroke;
  if (!in_stroke_) close_step();
  return changed;
}

}  // namespace medsynth::ui

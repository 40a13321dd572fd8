#include "ui/viewer/label_edits.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

}  // namespace medsynth::ui

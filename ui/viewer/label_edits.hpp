// The edits of a label map in the viewer (issue 39.2), kept free of VTK and
// widgets so that tests check them without a display: a brush (a disc of a
// radius in millimetres on one slice, so that it stays round on anisotropic
// grids), an eraser (the brush writing 0) and a fill (the 4-connected region
// of the clicked voxel's label on that slice, as Slicer's and ITK-SNAP's 2D
// fill do). One mouse drag is one stroke and one undo step; undo and redo
// replay the voxels a step changed. The map is edited in place and shared
// (the overlay draws the same Volume); every call returns the offsets it
// changed so that the drawing updates only those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <memory>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth::ui {

enum class LabelTool { navigate, brush, eraser, fill, sphere };  // sphere: the 3D brush

// A voxel of the grid as x, y, z indices.
using LabelVoxel = std::array<std::int64_t, 3>;

class LabelEdits {
 public:
  // The undo history keeps this many strokes (oldest dropped first).
  static constexpr std::size_t k_max_undo_steps = 64;

  // `labels` is edited in place; throws std::invalid_argument when null or
  // when its voxel count does not match its size.
  explicit LabelEdits(std::shared_ptr<Volume> labels);

  std::shared_ptr<const Volume> labels() const { return labels_; }

  // Strokes group changes into undo steps; a change outside a stroke is a
  // step of its own.
  void begin_stroke();
  void end_stroke();

  // Writes `value` into the voxels of the slice through `center` normal to
  // index axis `normal_axis` (0, 1, 2) whose centres lie within radius_mm of
  // the centre's (the centre itself always). Outside the grid: nothing.
  std::vector<std::size_t> paint(int normal_axis, const LabelVoxel& center, double radius_mm, float value);
  // Writes `value` into the 4-connected region of the seed's label on its
  // slice normal to `normal_axis`.
  std::vector<std::size_t> fill(int normal_axis, const LabelVoxel& seed, float value);
  // The 3D brush (issue 55): `value` into every voxel whose centre lies
  // within radius_mm of the centre's, in millimetres on the grid's spacing
  // (a ball, not a cube of slices, on anisotropic grids too).
  std::vector<std::size_t> paint_sphere(const LabelVoxel& center, double radius_mm, float value);
  // Fill between slices (Slicer's Segment Editor): along `normal_axis`,
  // every run of slices without `value` between two slices with it gets the
  // shape that morphs between the two (ui/viewer/label_interpolation.hpp),
  // written only where the map is 0 so that no other label is overwritten.
  // One undo step.
  std::vector<std::size_t> fill_between_slices(int normal_axis, float value);

  bool can_undo() const { return !undo_.empty(); }
  bool can_redo() const { return !redo_.empty(); }
  std::vector<std::size_t> undo();
  std::vector<std::size_t> redo();

  // Changed since construction or the last mark_saved().
  bool modified() const { return revision_ != saved_revision_; }
  void mark_saved() { saved_revision_ = revision_; }

 private:
  struct Change {
    std::size_t offset;
    float before;
    float after;
  };
  struct Step {
    std::vector<Change> changes;
    std::uint64_t revision_before = 0;
    std::uint64_t revision_after = 0;
  };
  bool inside(const LabelVoxel& v) const;
  // The slice `index` normal to `normal_axis`: where the map holds `value`.
  std::vector<char> slice_mask(int normal_axis, std::int64_t index, float value) const;
  void set(std::size_t offset, float value, std::vector<std::size_t>& changed);
  void close_step();

  std::shared_ptr<Volume> labels_;
  Step open_;
  bool in_stroke_ = false;
  std::vector<Step> undo_;
  std::vector<Step> redo_;
  std::uint64_t revision_ = 0;
  std::uint64_t saved_revision_ = 0;
  std::uint64_t next_revision_ = 1;
};

// The index axis (0, 1, 2) of `volume` whose world direction is closest to
// `world_normal` (a slice view's projection direction): the axis a slice
// edit holds fixed.
int normal_index_axis(const Volume& volume, const std::array<double, 3>& world_normal);

}  // namespace medsynth::ui

// The label map of a slice view as a VTK layer: a second resliced image (the
// label slots of label_map.hpp, nearest-neighbour, same placement matrix as
// the image) drawn over the grey image through a vtkImageStack, with the
// fixed colour table (slot 0 transparent), an opacity and a visibility.
// SliceScene owns one; VolumeViewerWidget makes the label image once
// (make_label_image_data) and shares it with the three views. Internal to
// medsynth_viewer; GUI thread (or the snapshot's thread) only.
#pragma once

#include <vtkNew.h>
#include <vtkSmartPointer.h>

#include "volume/volume.hpp"

class vtkImageData;
class vtkImageProperty;
class vtkImageResliceMapper;
class vtkImageSlice;
class vtkLookupTable;
class vtkMatrix4x4;

namespace medsynth::ui {

// The label slots (unsigned char, one per voxel) on the grid make_image_data
// uses for the image: spacing kept, origin 0, placement by the prop matrix.
vtkSmartPointer<vtkImageData> make_label_image_data(const Volume& labels);
// 256 entries over [-0.5, 255.5]: entry i = label_color(i), entry 0 transparent.
vtkSmartPointer<vtkLookupTable> make_label_lookup_table();

class LabelOverlayLayer {
 public:
  LabelOverlayLayer();
  ~LabelOverlayLayer();
  LabelOverlayLayer(const LabelOverlayLayer&) = delete;
  LabelOverlayLayer& operator=(const LabelOverlayLayer&) = delete;

  // The prop to add to the scene's vtkImageStack (layer 1, over the image).
  vtkImageSlice* prop() const;

  void set_labels(vtkImageData* labels, vtkMatrix4x4* index_to_world);
  void clear();
  bool has_labels() const { return has_labels_; }

  void set_opacity(double opacity);  // clamped to [0, 1]
  double opacity() const { return opacity_; }
  void set_visible(bool visible);
  bool visible() const { return visible_; }

 private:
  void update_visibility();

  bool has_labels_ = false;
  bool visible_ = true;
  double opacity_ = 0.5;
  vtkNew<vtkImageResliceMapper> mapper_;
  vtkNew<vtkImageSlice> slice_;
  vtkNew<vtkImageProperty> property_;
};

}  // namespace medsynth::ui

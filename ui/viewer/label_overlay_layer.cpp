#include "ui/viewer/label_overlay_layer.hpp"

#include <algorithm>

#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkLookupTable.h>
#include <vtkMatrix4x4.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

#include "ui/viewer/label_map.hpp"

namespace medsynth::ui {

vtkSmartPointer<vtkImageData> make_label_image_data(const Volume& labels) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(static_cast<int>(labels.size[0]), static_cast<int>(labels.size[1]),
                       static_cast<int>(labels.size[2]));
  image->SetSpacing(labels.spacing.data());
  image->SetOrigin(0.0, 0.0, 0.0);
  auto values = vtkSmartPointer<vtkUnsignedCharArray>::New();
  values->SetName("label");
  values->SetNumberOfComponents(1);
  values->SetNumberOfTuples(static_cast<vtkIdType>(labels.voxel_count()));
  const std::size_t n = std::min(labels.voxels.size(), labels.voxel_count());
  unsigned char* out = values->GetPointer(0);
  for (std::size_t i = 0; i < n; ++i) out[i] = label_slot(labels.voxels[i]);
  for (std::size_t i = n; i < labels.voxel_count(); ++i) out[i] = 0;
  image->GetPointData()->SetScalars(values);
  return image;
}

vtkSmartPointer<vtkLookupTable> make_label_lookup_table() {
  auto table = vtkSmartPointer<vtkLookupTable>::New();
  table->SetNumberOfTableValues(k_label_slots);
  // Slot i sits in the middle of entry i's bin: no rounding at the edges.
  table->SetRange(-0.5, k_label_slots - 0.5);
  table->SetTableValue(0, 0.0, 0.0, 0.0, 0.0);
  for (int i = 1; i < k_label_slots; ++i) {
    const Rgb c = label_color(i);
    table->SetTableValue(i, c[0], c[1], c[2], 1.0);
  }
  table->UseBelowRangeColorOff();
  table->UseAboveRangeColorOff();
  return table;
}

LabelOverlayLayer::LabelOverlayLayer() {
  mapper_->SliceFacesCameraOn();
  mapper_->SliceAtFocalPointOn();
  mapper_->JumpToNearestSliceOn();
  mapper_->BorderOn();  // the same voxel footprint as the image below
  property_->SetInterpolationTypeToNearest();
  property_->SetLookupTable(make_label_lookup_table());
  property_->UseLookupTableScalarRangeOn();  // window/level never applies to labels
  property_->SetOpacity(opacity_);
  property_->SetLayerNumber(1);
  slice_->SetMapper(mapper_);
  slice_->SetProperty(property_);
  slice_->PickableOff();
  update_visibility();
}

LabelOverlayLayer::~LabelOverlayLayer() = default;

vtkImageSlice* LabelOverlayLayer::prop() const { return slice_; }

void LabelOverlayLayer::set_labels(vtkImageData* labels, vtkMatrix4x4* index_to_world) {
  mapper_->SetInputData(labels);
  slice_->SetUserMatrix(index_to_world);
  has_labels_ = labels != nullptr;
  update_visibility();
}

void LabelOverlayLayer::clear() {
  mapper_->SetInputData(static_cast<vtkImageData*>(nullptr));
  has_labels_ = false;
  update_visibility();
}

void LabelOverlayLayer::set_opacity(double opacity) {
  opacity_ = std::clamp(opacity, 0.0, 1.0);
  property_->SetOpacity(opacity_);
}

void LabelOverlayLayer::set_visible(bool visible) {
  visible_ = visible;
  update_visibility();
}

void LabelOverlayLayer::update_visibility() { slice_->SetVisibility(has_labels_ && visible_); }

}  // namespace medsynth::ui

#include "ui/viewer/vtk_volume_bridge.hpp"

#include <algorithm>
#include <cstring>

#include <vtkColorTransferFunction.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkLookupTable.h>
#include <vtkMatrix4x4.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPointData.h>

namespace medsynth::ui {

vtkSmartPointer<vtkImageData> make_image_data(const Volume& volume) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(static_cast<int>(volume.size[0]), static_cast<int>(volume.size[1]),
                       static_cast<int>(volume.size[2]));
  image->SetSpacing(volume.spacing.data());
  image->SetOrigin(0.0, 0.0, 0.0);
  auto scalars = vtkSmartPointer<vtkFloatArray>::New();
  scalars->SetName("intensity");
  scalars->SetNumberOfComponents(1);
  scalars->SetNumberOfTuples(static_cast<vtkIdType>(volume.voxel_count()));
  // A copy rather than a view of volume.voxels: the VTK pipeline may outlive
  // the Volume (mappers are released after the widget's members).
  const std::size_t n = std::min(volume.voxels.size(), volume.voxel_count());
  if (n > 0) std::memcpy(scalars->GetPointer(0), volume.voxels.data(), n * sizeof(float));
  image->GetPointData()->SetScalars(scalars);
  return image;
}

vtkSmartPointer<vtkMatrix4x4> index_to_world_matrix(const Volume& volume) {
  auto m = vtkSmartPointer<vtkMatrix4x4>::New();
  m->Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m->SetElement(r, c, volume.direction[static_cast<std::size_t>(r * 3 + c)]);
    m->SetElement(r, 3, volume.origin[static_cast<std::size_t>(r)]);
  }
  return m;
}

vtkSmartPointer<vtkLookupTable> make_lookup_table(Colormap map) {
  constexpr int entries = 256;
  auto table = vtkSmartPointer<vtkLookupTable>::New();
  table->SetNumberOfTableValues(entries);
  for (int i = 0; i < entries; ++i) {
    const Rgb c = colormap_color(map, static_cast<double>(i) / (entries - 1));
    table->SetTableValue(i, c[0], c[1], c[2], 1.0);
  }
  table->SetNanColor(0.0, 0.0, 0.0, 1.0);
  table->UseBelowRangeColorOff();
  table->UseAboveRangeColorOff();
  table->SetRange(0.0, 1.0);
  return table;
}

void fill_transfer_functions(const std::vector<TransferPoint>& points, vtkColorTransferFunction* color,
                             vtkPiecewiseFunction* opacity) {
  color->RemoveAllPoints();
  opacity->RemoveAllPoints();
  for (const auto& p : points) {
    color->AddRGBPoint(p.value, p.r, p.g, p.b);
    opacity->AddPoint(p.value, p.opacity);
  }
}

}  // namespace medsynth::ui

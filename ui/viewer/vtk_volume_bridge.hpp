// Turns the viewer's plain data (Volume, Colormap, TransferPoint) into VTK
// objects. Internal to medsynth_viewer (VTK types stay out of the public
// headers); used by SliceScene, VolumeScene and the headless snapshot.
#pragma once

#include <vector>

#include <vtkSmartPointer.h>

#include "ui/viewer/colormap.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "volume/volume.hpp"

class vtkColorTransferFunction;
class vtkImageData;
class vtkLookupTable;
class vtkMatrix4x4;
class vtkPiecewiseFunction;

namespace medsynth::ui {

// The voxels (copied) on a grid with the volume's spacing, origin 0 and
// identity direction. The physical placement is index_to_world_matrix(),
// applied as the prop's user matrix: every VTK 9.1 mapper honours a prop
// matrix, while support for vtkImageData's own direction varies by mapper.
vtkSmartPointer<vtkImageData> make_image_data(const Volume& volume);

// World (LPS) = direction * (spacing .* index) + origin, as a 4x4 whose
// input is the image's (spacing-scaled) data coordinates.
vtkSmartPointer<vtkMatrix4x4> index_to_world_matrix(const Volume& volume);

// A 256-entry table sampled from the colormap; NaN voxels are drawn black.
vtkSmartPointer<vtkLookupTable> make_lookup_table(Colormap map);

void fill_transfer_functions(const std::vector<TransferPoint>& points, vtkColorTransferFunction* color,
                             vtkPiecewiseFunction* opacity);

}  // namespace medsynth::ui

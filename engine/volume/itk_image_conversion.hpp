// Shared by the two ITK readers (itk_nifti_io.cpp, itk_dicom_io.cpp) and only
// them: ITK types stay inside medsynth_volume. Moves a float ITK image into a
// Volume and words ITK exceptions for DataError messages.
#pragma once

#include <itkImage.h>

#include <string>

#include "volume/volume.hpp"

namespace medsynth::itk_detail {

using FloatImage = itk::Image<float, 3>;

inline std::string itk_reason(const itk::ExceptionObject& e) {
  std::string text = e.GetDescription();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? std::string("unknown ITK error") : text;
}

// Size, spacing, origin and direction as ITK reports them (LPS), voxels copied.
inline Volume volume_from_image(const FloatImage& image) {
  const auto region = image.GetLargestPossibleRegion();
  Volume volume;
  for (unsigned i = 0; i < 3; ++i) {
    volume.size[i] = region.GetSize()[i];
    volume.spacing[i] = image.GetSpacing()[i];
    volume.origin[i] = image.GetOrigin()[i];
    for (unsigned j = 0; j < 3; ++j) volume.direction[i * 3 + j] = image.GetDirection()[i][j];
  }
  const float* data = image.GetBufferPointer();
  volume.voxels.assign(data, data + volume.voxel_count());
  return volume;
}

}  // namespace medsynth::itk_detail

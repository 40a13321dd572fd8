// DICOM slices through GDCM (itk::GDCMImageIO + ImageSeriesReader). The files
// were chosen, ordered and checked by select_dicom_series / check_dicom_file,
// so GDCM never opens a file whose structure was not checked first (Debian's
// GDCM aborts the process on some broken files); its exceptions become DataError.
#include <itkGDCMImageIO.h>
#include <itkImage.h>
#include <itkImageSeriesReader.h>

#include <new>

#include "core/error.hpp"
#include "volume/itk_volume_io.hpp"

namespace medsynth::itk_detail {
namespace {

using FloatImage = itk::Image<float, 3>;

std::string itk_reason(const itk::ExceptionObject& e) {
  std::string text = e.GetDescription();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? std::string("unknown ITK error") : text;
}

}  // namespace

Volume read_dicom_files(const std::string& folder, const std::vector<std::string>& files) {
  try {
    auto io = itk::GDCMImageIO::New();
    auto reader = itk::ImageSeriesReader<FloatImage>::New();
    reader->SetImageIO(io);
    reader->SetFileNames(files);
    reader->Update();
    if (io->GetNumberOfComponents() != 1)
      throw DataError(folder, "DICOM series has " + std::to_string(io->GetNumberOfComponents()) +
                                  " components per pixel; only scalar volumes are read");

    const FloatImage* image = reader->GetOutput();
    const auto region = image->GetLargestPossibleRegion();
    Volume volume;
    for (unsigned i = 0; i < 3; ++i) {
      volume.size[i] = region.GetSize()[i];
      volume.spacing[i] = image->GetSpacing()[i];
      volume.origin[i] = image->GetOrigin()[i];
      for (unsigned j = 0; j < 3; ++j) volume.direction[i * 3 + j] = image->GetDirection()[i][j];
    }
    const float* data = image->GetBufferPointer();
    volume.voxels.assign(data, data + volume.voxel_count());
    return volume;
  } catch (const Error&) {
    throw;
  } catch (const itk::ExceptionObject& e) {
    throw DataError(folder, "cannot read the DICOM series: " + itk_reason(e));
  } catch (const std::bad_alloc&) {
    throw DataError(folder, "out of memory while reading the DICOM series");
  } catch (const std::exception& e) {
    throw DataError(folder, std::string("cannot read the DICOM series: ") + e.what());
  }
}

}  // namespace medsynth::itk_detail

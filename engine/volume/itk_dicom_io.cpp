// DICOM slices through GDCM (itk::GDCMImageIO + ImageSeriesReader). The files
// were chosen, ordered and checked by select_dicom_series / check_dicom_file,
// so GDCM never opens a file whose structure was not checked first (Debian's
// GDCM aborts the process on some broken files); its exceptions become DataError.
#include <itkGDCMImageIO.h>
#include <itkImage.h>
#include <itkImageSeriesReader.h>

#include <new>

#include "core/error.hpp"
#include "volume/itk_image_conversion.hpp"
#include "volume/itk_volume_io.hpp"

namespace medsynth::itk_detail {
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

    return volume_from_image(*reader->GetOutput());
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

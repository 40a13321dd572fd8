// The ITK/GDCM half of write_dicom_series: one int16 slice per file through
// itk::GDCMImageIO, with the tags dicom_export.cpp chose, and GDCM's UID
// generator. GDCM writes the geometry tags (ImagePositionPatient,
// ImageOrientationPatient, PixelSpacing) from the image itself. The rescale
// tags are set afterwards with GDCM: given RescaleIntercept/Slope in the
// dictionary, ITK 5.2 takes the int16 pixels for real-world values and
// inverse-rescales them itself (and aborts in gdcm::Rescaler on a slope that
// is not an integer), so the stored values go through ITK with no rescale.
#include <gdcmDataElement.h>
#include <gdcmReader.h>
#include <gdcmUIDGenerator.h>
#include <gdcmWriter.h>
#include <itkGDCMImageIO.h>
#include <itkImage.h>
#include <itkImageFileWriter.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "volume/itk_image_conversion.hpp"
#include "volume/itk_volume_io.hpp"
#include "volume/write_failure_cause.hpp"

namespace medsynth::itk_detail {

std::string new_dicom_uid() {
  gdcm::UIDGenerator generator;  // GDCM's root + a time/random suffix, unique per call
  const char* uid = generator.Generate();
  if (uid == nullptr) throw RuntimeError("GDCM could not generate a DICOM UID");
  return uid;
}

namespace {

// GDCM and ITK lose the errno of a short write: a full disk reads "DICOM does
// not support this component type". The cut file says it again (issue 50).
[[noreturn]] void throw_dicom_write_failure(const std::string& path, const std::string& reason) {
  if (const int cause = storage_cause_of_failed_write(path))
    throw_write_error(path + ": cannot write: " + std::strerror(cause), cause);
  throw RuntimeError(path + ": cannot write the DICOM file: " + reason);
}

// Replaces (or adds) string elements of a file GDCM can read.
void patch_dicom_file(const std::string& path, const std::vector<DicomPatch>& patches) {
  gdcm::Reader reader;
  reader.SetFileName(path.c_str());
  if (!reader.Read()) throw RuntimeError(path + ": cannot read back the DICOM file just written");
  gdcm::DataSet& dataset = reader.GetFile().GetDataSet();
  for (const auto& patch : patches) {
    std::string value = patch.value;
    if (value.size() % 2 != 0) value += ' ';  // DS/LO/CS pad with a space to an even length
    gdcm::DataElement element(gdcm::Tag(patch.group, patch.element));
    element.SetVR(gdcm::VR::GetVRType(patch.vr));
    element.SetByteValue(value.data(), static_cast<std::uint32_t>(value.size()));
    dataset.Replace(element);
  }
  gdcm::Writer writer;
  writer.SetFileName(path.c_str());
  writer.SetFile(reader.GetFile());
  if (!writer.Write()) throw_dicom_write_failure(path, "GDCM could not write it (rescale tags)");
}

}  // namespace

void write_dicom_slice(const std::string& path, const DicomSlice& slice, const DicomTags& tags,
                       const std::vector<DicomPatch>& patches) {
  using Image = itk::Image<short, 3>;
  try {
    auto image = Image::New();
    Image::RegionType region;
    region.SetSize({slice.columns, slice.rows, 1});
    image->SetRegions(region);
    image->Allocate();
    std::copy(slice.pixels.begin(), slice.pixels.end(), image->GetBufferPointer());
    Image::SpacingType spacing;
    Image::PointType origin;
    Image::DirectionType direction;
    for (unsigned i = 0; i < 3; ++i) {
      spacing[i] = slice.spacing[i];
      origin[i] = slice.origin[i];
      for (unsigned j = 0; j < 3; ++j) direction[i][j] = slice.direction[i * 3 + j];
    }
    image->SetSpacing(spacing);
    image->SetOrigin(origin);
    image->SetDirection(direction);

    itk::MetaDataDictionary dict;
    for (const auto& [key, value] : tags) itk::EncapsulateMetaData<std::string>(dict, key, value);
    image->SetMetaDataDictionary(dict);
    auto io = itk::GDCMImageIO::New();
    io->KeepOriginalUIDOn();  // our Study/Series/SOP/FrameOfReference UIDs, not new ones per file
    io->SetMetaDataDictionary(dict);
    auto writer = itk::ImageFileWriter<Image>::New();
    writer->SetImageIO(io);
    writer->SetFileName(path);
    writer->SetInput(image);
    writer->Update();
  } catch (const itk::ExceptionObject& e) {
    throw_dicom_write_failure(path, itk_reason(e));
  }
  patch_dicom_file(path, patches);
}

}  // namespace medsynth::itk_detail

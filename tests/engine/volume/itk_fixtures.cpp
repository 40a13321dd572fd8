// ITK-written fixtures for the volume tests (see itk_fixtures.hpp).
#include "itk_fixtures.hpp"

#include <itkGDCMImageIO.h>
#include <itkImage.h>
#include <itkImageFileWriter.h>
#include <itkMetaImageIO.h>
#include <itkMetaDataObject.h>
#include <itkNiftiImageIO.h>
#include <itkNrrdImageIO.h>
#include <itkVector.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace medsynth::test {
namespace {

template <typename Image>
typename Image::Pointer make_image(const Volume& v, std::size_t t = 1) {
  constexpr unsigned dims = Image::ImageDimension;
  auto image = Image::New();
  typename Image::RegionType region;
  typename Image::SpacingType spacing;
  typename Image::PointType origin;
  typename Image::DirectionType direction;
  direction.SetIdentity();
  spacing.Fill(1.0);
  origin.Fill(0.0);
  for (unsigned i = 0; i < 3; ++i) {
    region.SetSize(i, v.size[i]);
    spacing[i] = v.spacing[i];
    origin[i] = v.origin[i];
    for (unsigned j = 0; j < 3; ++j) direction[i][j] = v.direction[i * 3 + j];
  }
  if constexpr (dims == 4) region.SetSize(3, t);
  image->SetRegions(region);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->Allocate();
  return image;
}

template <typename Image>
void write_with_io(const typename Image::Pointer& image, const std::filesystem::path& path, itk::ImageIOBase* io) {
  auto writer = itk::ImageFileWriter<Image>::New();
  writer->SetImageIO(io);
  writer->SetFileName(path.string());
  writer->SetInput(image);
  writer->Update();
}

itk::ImageIOBase::Pointer text_header_io(TextHeaderFormat format) {
  if (format == TextHeaderFormat::nrrd) return itk::NrrdImageIO::New().GetPointer();
  return itk::MetaImageIO::New().GetPointer();
}

template <typename Image>
void write_nifti(const typename Image::Pointer& image, const std::filesystem::path& path) {
  auto writer = itk::ImageFileWriter<Image>::New();
  writer->SetImageIO(itk::NiftiImageIO::New());
  writer->SetFileName(path.string());
  writer->SetInput(image);
  writer->Update();
}

}  // namespace

void write_int16_nifti_with_itk(const Volume& volume, const std::filesystem::path& path) {
  using Image = itk::Image<short, 3>;
  auto image = make_image<Image>(volume);
  short* out = image->GetBufferPointer();
  for (std::size_t i = 0; i < volume.voxels.size(); ++i) out[i] = static_cast<short>(std::lround(volume.voxels[i]));
  write_nifti<Image>(image, path);
}

void write_float64_nifti_with_itk(const Volume& volume, const std::filesystem::path& path) {
  using Image = itk::Image<double, 3>;
  auto image = make_image<Image>(volume);
  double* out = image->GetBufferPointer();
  for (std::size_t i = 0; i < volume.voxels.size(); ++i) out[i] = volume.voxels[i];
  write_nifti<Image>(image, path);
}

void write_4d_nifti_with_itk(const Volume& volume, std::size_t t, const std::filesystem::path& path) {
  using Image = itk::Image<float, 4>;
  auto image = make_image<Image>(volume, t);
  float* out = image->GetBufferPointer();
  const std::size_t n = volume.voxels.size();
  for (std::size_t k = 0; k < t; ++k)
    for (std::size_t i = 0; i < n; ++i) out[k * n + i] = volume.voxels[i] + static_cast<float>(k);
  write_nifti<Image>(image, path);
}

void write_dicom_series_with_itk(const Volume& volume, const std::filesystem::path& folder, bool compressed) {
  using Image = itk::Image<short, 3>;
  const std::string study = "1.2.826.0.1.3680043.2.1125.77.1";
  const std::string series = study + ".1";
  for (std::size_t z = 0; z < volume.size[2]; ++z) {
    Volume slice = volume;
    slice.size[2] = 1;
    for (int i = 0; i < 3; ++i)
      slice.origin[i] = volume.origin[i] + static_cast<double>(z) * volume.spacing[2] * volume.direction[i * 3 + 2];
    auto image = make_image<Image>(slice);
    short* out = image->GetBufferPointer();
    const std::size_t plane = volume.size[0] * volume.size[1];
    for (std::size_t i = 0; i < plane; ++i) out[i] = static_cast<short>(std::lround(volume.voxels[z * plane + i]));

    auto& dict = image->GetMetaDataDictionary();
    itk::EncapsulateMetaData<std::string>(dict, "0008|0016", "1.2.840.10008.5.1.4.1.1.2");  // CT Image Storage
    itk::EncapsulateMetaData<std::string>(dict, "0008|0060", "CT");
    itk::EncapsulateMetaData<std::string>(dict, "0028|0004", "MONOCHROME2");
    itk::EncapsulateMetaData<std::string>(dict, "0020|000d", study);
    itk::EncapsulateMetaData<std::string>(dict, "0020|000e", series);
    itk::EncapsulateMetaData<std::string>(dict, "0008|0018", series + "." + std::to_string(z + 1));
    itk::EncapsulateMetaData<std::string>(dict, "0020|0013", std::to_string(z + 1));
    auto io = itk::GDCMImageIO::New();
    io->KeepOriginalUIDOn();
    io->SetMetaDataDictionary(dict);
    auto writer = itk::ImageFileWriter<Image>::New();
    if (compressed) {
      io->SetCompressionType(itk::GDCMImageIO::CompressionEnum::JPEG);
      writer->UseCompressionOn();
    }
    writer->SetImageIO(io);
    writer->SetFileName((folder / ("slice" + std::to_string(z) + ".dcm")).string());
    writer->SetInput(image);
    writer->Update();
  }
}

void write_float_with_itk(const Volume& volume, const std::filesystem::path& path, TextHeaderFormat format) {
  using Image = itk::Image<float, 3>;
  auto image = make_image<Image>(volume);
  std::copy(volume.voxels.begin(), volume.voxels.end(), image->GetBufferPointer());
  write_with_io<Image>(image, path, text_header_io(format));
}

void write_4d_float_with_itk(const Volume& volume, std::size_t t, const std::filesystem::path& path,
                             TextHeaderFormat format) {
  using Image = itk::Image<float, 4>;
  auto image = make_image<Image>(volume, t);
  float* out = image->GetBufferPointer();
  const std::size_t n = volume.voxels.size();
  for (std::size_t k = 0; k < t; ++k)
    for (std::size_t i = 0; i < n; ++i) out[k * n + i] = volume.voxels[i] + static_cast<float>(k);
  write_with_io<Image>(image, path, text_header_io(format));
}

void write_vector2_with_itk(const Volume& volume, const std::filesystem::path& path, TextHeaderFormat format) {
  using Image = itk::Image<itk::Vector<float, 2>, 3>;
  auto image = make_image<Image>(volume);
  auto* out = image->GetBufferPointer();
  for (std::size_t i = 0; i < volume.voxels.size(); ++i) {
    out[i][0] = volume.voxels[i];
    out[i][1] = -volume.voxels[i];
  }
  write_with_io<Image>(image, path, text_header_io(format));
}

}  // namespace medsynth::test

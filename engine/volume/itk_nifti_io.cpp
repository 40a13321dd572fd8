// NIfTI through ITK's NiftiImageIO, set explicitly on the reader and writer:
// no IO factory registration is needed (ITK_USE_FILE stays out of the build),
// and no other format can be picked up by accident.
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkNiftiImageIO.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>

#include "core/error.hpp"
#include "volume/itk_image_conversion.hpp"
#include "volume/itk_volume_io.hpp"

namespace medsynth::itk_detail {
Volume read_nifti(const std::string& path) {
  try {
    auto io = itk::NiftiImageIO::New();
    // The guard already refuses Analyze headers; this keeps ITK from ever
    // reinterpreting one should a file change between check and read.
    io->SetLegacyAnalyze75Mode(itk::NiftiImageIOEnums::Analyze75Flavor::AnalyzeReject);
    auto reader = itk::ImageFileReader<FloatImage>::New();
    reader->SetImageIO(io);
    reader->SetFileName(path);
    reader->Update();
    if (io->GetNumberOfComponents() != 1)
      throw DataError(path, "has " + std::to_string(io->GetNumberOfComponents()) +
                                " components per voxel; only scalar volumes are read");

    return volume_from_image(*reader->GetOutput());
  } catch (const Error&) {
    throw;
  } catch (const itk::ExceptionObject& e) {
    throw DataError(path, "ITK cannot read it: " + itk_reason(e));
  } catch (const std::bad_alloc&) {
    throw DataError(path, "out of memory while reading it");
  } catch (const std::exception& e) {
    throw DataError(path, std::string("cannot read it: ") + e.what());
  }
}

namespace {

// One image type's writer: the geometry set from `volume`, the voxels `pixels`
// (borrowed, not copied: the writer only reads).
template <typename Pixel>
void write_image(const Volume& volume, Pixel* pixels, const std::string& path) {
  using Image = itk::Image<Pixel, 3>;
  auto image = Image::New();
  typename Image::RegionType region;
  typename Image::SpacingType spacing;
  typename Image::PointType origin;
  typename Image::DirectionType direction;
  for (unsigned i = 0; i < 3; ++i) {
    region.SetSize(i, volume.size[i]);
    spacing[i] = volume.spacing[i];
    origin[i] = volume.origin[i];
    for (unsigned j = 0; j < 3; ++j) direction[i][j] = volume.direction[i * 3 + j];
  }
  image->SetRegions(region);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->GetPixelContainer()->SetImportPointer(pixels, volume.voxels.size(), false);
  auto io = itk::NiftiImageIO::New();
  auto writer = itk::ImageFileWriter<Image>::New();
  writer->SetImageIO(io);
  writer->SetFileName(path);
  writer->SetInput(image);
  writer->Update();
}

// A label map in its smallest exact type: uint8 for MAISI's classes (0-132,
// body 200), as NV-Generate writes its masks; uint16 for larger label values;
// float32, as before, for a map with a value that is no whole number in
// 0..65535 (nothing is rounded away).
void write_label_image(const Volume& volume, const std::string& path) {
  float largest = 0.0f;
  for (const float v : volume.voxels) {
    if (!(v >= 0.0f && v <= 65535.0f) || v != std::nearbyint(v)) {
      write_image(volume, const_cast<float*>(volume.voxels.data()), path);
      return;
    }
    largest = std::max(largest, v);
  }
  if (largest <= 255.0f) {
    std::vector<std::uint8_t> whole(volume.voxels.begin(), volume.voxels.end());
    write_image(volume, whole.data(), path);
  } else {
    std::vector<std::uint16_t> whole(volume.voxels.begin(), volume.voxels.end());
    write_image(volume, whole.data(), path);
  }
}

}  // namespace

void write_nifti(const Volume& volume, const std::string& path, StoredPixel stored) {
  try {
    if (stored == StoredPixel::float32) {
      write_image(volume, const_cast<float*>(volume.voxels.data()), path);
      return;
    }
    if (stored == StoredPixel::label) {
      write_label_image(volume, path);
      return;
    }
    // int16: each value rounded to the nearest whole one and clamped to the
    // type's range (HU from -1000 to 1000 fit with room to spare).
    std::vector<std::int16_t> whole(volume.voxels.size());
    std::transform(volume.voxels.begin(), volume.voxels.end(), whole.begin(),
                   [](float v) { return static_cast<std::int16_t>(std::clamp(std::lround(v), -32768L, 32767L)); });
    write_image(volume, whole.data(), path);
  } catch (const itk::ExceptionObject& e) {
    throw RuntimeError(path + ": ITK cannot write it: " + itk_reason(e));
  } catch (const std::bad_alloc&) {
    throw RuntimeError(path + ": out of memory while writing it");
  }
}

}  // namespace medsynth::itk_detail

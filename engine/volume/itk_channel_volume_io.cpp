// Channels-last NIfTI through ITK: an itk::Image<float, 4> whose 4th axis is
// the channel, which NiftiImageIO stores as dim[4] with dim[0] = 4, the
// layout nibabel gives NV-Generate's [X, Y, Z, C] arrays. (An itk::VectorImage
// would be written as NIfTI's vector intent, dim[5], which NV-Generate's
// scripts would read as a 5D array.)
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkNiftiImageIO.h>

#include <new>

#include "core/error.hpp"
#include "volume/itk_image_conversion.hpp"
#include "volume/itk_volume_io.hpp"

namespace medsynth::itk_detail {
namespace {

using ChannelImage = itk::Image<float, 4>;

}  // namespace

ChannelVolume read_nifti_channels(const std::string& path) {
  try {
    auto io = itk::NiftiImageIO::New();
    io->SetLegacyAnalyze75Mode(itk::NiftiImageIOEnums::Analyze75Flavor::AnalyzeReject);
    auto reader = itk::ImageFileReader<ChannelImage>::New();
    reader->SetImageIO(io);
    reader->SetFileName(path);
    reader->Update();
    if (io->GetNumberOfComponents() != 1)
      throw DataError(path, "has " + std::to_string(io->GetNumberOfComponents()) +
                                " components per voxel; channels are read from the 4th axis");
    const ChannelImage& image = *reader->GetOutput();
    const auto size = image.GetLargestPossibleRegion().GetSize();
    ChannelVolume volume;
    for (unsigned i = 0; i < 3; ++i) {
      volume.size[i] = size[i];
      volume.spacing[i] = image.GetSpacing()[i];
      volume.origin[i] = image.GetOrigin()[i];
      for (unsigned j = 0; j < 3; ++j) volume.direction[i * 3 + j] = image.GetDirection()[i][j];
    }
    volume.channels = size[3];
    const float* data = image.GetBufferPointer();
    volume.voxels.assign(data, data + volume.voxel_count());
    return volume;
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

void write_nifti_channels(const ChannelVolume& volume, const std::string& path) {
  try {
    auto image = ChannelImage::New();
    ChannelImage::RegionType region;
    ChannelImage::SpacingType spacing;
    ChannelImage::PointType origin;
    ChannelImage::DirectionType direction;
    direction.SetIdentity();
    for (unsigned i = 0; i < 3; ++i) {
      region.SetSize(i, volume.size[i]);
      spacing[i] = volume.spacing[i];
      origin[i] = volume.origin[i];
      for (unsigned j = 0; j < 3; ++j) direction[i][j] = volume.direction[i * 3 + j];
    }
    // The channel axis has no geometry: pixdim[4] = 1, as nibabel writes it.
    region.SetSize(3, volume.channels);
    spacing[3] = 1.0;
    origin[3] = 0.0;
    image->SetRegions(region);
    image->SetSpacing(spacing);
    image->SetOrigin(origin);
    image->SetDirection(direction);
    // Borrow the buffer instead of copying it: the writer only reads.
    image->GetPixelContainer()->SetImportPointer(const_cast<float*>(volume.voxels.data()), volume.voxels.size(), false);

    auto io = itk::NiftiImageIO::New();
    auto writer = itk::ImageFileWriter<ChannelImage>::New();
    writer->SetImageIO(io);
    writer->SetFileName(path);
    writer->SetInput(image);
    writer->Update();
  } catch (const itk::ExceptionObject& e) {
    throw RuntimeError(path + ": ITK cannot write it: " + itk_reason(e));
  } catch (const std::bad_alloc&) {
    throw RuntimeError(path + ": out of memory while writing it");
  }
}

}  // namespace medsynth::itk_detail

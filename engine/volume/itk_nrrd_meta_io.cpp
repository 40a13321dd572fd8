// NRRD (.nrrd, .nhdr) and MetaImage (.mha, .mhd) through ITK's NrrdImageIO and
// MetaImageIO, set explicitly (no IO factories, as for NIfTI). Unlike NIfTI,
// these headers are text that ITK parses well, so the checks run on what
// ReadImageInformation() reports, before the reader allocates the voxels:
// scalar pixels, 3 axes (extra axes of length 1 allowed, as for NIfTI),
// the caps of VolumeReadOptions, finite positive spacing, a finite origin and
// an orthonormal direction matrix, and (raw NRRD, uncompressed MetaImage)
// data as long as declared. Called by read_volume, and by check_volume_file
// (the checks before step 0 of a training run: the header checks, and for
// float data a read that counts NaN/Inf voxels).
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkMetaImageIO.h>
#include <itkNrrdImageIO.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "volume/itk_image_conversion.hpp"
#include "volume/itk_volume_io.hpp"
#include "volume/volume_size_checks.hpp"

namespace medsynth::itk_detail {
namespace {

std::string num(double v) {
  std::ostringstream out;
  out.precision(10);
  out << v;
  return out.str();
}

// MetaIO (inside ITK 5.2) reads a cut-off data block without failing: it
// prints "data not read completely" and leaves the rest of the buffer as it
// was. So for uncompressed single-file data, the length is checked here.
// (NrrdIO refuses short data itself; compressed data fails in zlib.)
void check_meta_data_length(const std::string& path, itk::MetaImageIO& io, std::uint64_t data_bytes) {
  namespace fs = std::filesystem;
  MetaImage* meta = io.GetMetaImagePointer();
  if (!meta || meta->CompressedData()) return;
  const std::string data_file = meta->ElementDataFileName();
  if (data_file.empty() || data_file.rfind("LIST", 0) == 0 || data_file.find('%') != std::string::npos) return;
  std::error_code ec;
  std::uint64_t have = 0;
  if (data_file == "LOCAL") {
    // The voxels follow the line "ElementDataFile = LOCAL", the header's last.
    std::ifstream in(path, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const auto key = head.find("ElementDataFile");
    const auto eol = key == std::string::npos ? std::string::npos : head.find('\n', key);
    if (eol == std::string::npos) return;  // MetaIO parsed it; let it read
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) return;
    have = size > eol + 1 ? size - (eol + 1) : 0;
  } else {
    fs::path file(data_file);
    if (file.is_relative()) file = fs::path(path).parent_path() / file;
    const std::uint64_t size = fs::file_size(file, ec);
    if (ec) throw DataError(path, "its data file " + file.string() + " cannot be read (" + ec.message() + ")");
    const std::uint64_t skip = meta->HeaderSize() > 0 ? static_cast<std::uint64_t>(meta->HeaderSize()) : 0;
    have = size > skip ? size - skip : 0;
  }
  if (have < data_bytes)
    throw DataError(path, "truncated: holds " + std::to_string(have) + " of " + std::to_string(data_bytes) +
                              " bytes of voxel data");
}

// Raw NRRD data as long as declared, checked before a training run starts
// (NrrdIO refuses short data too, but only when the voxels are read, and in
// words that do not say what is missing). The header ends at its first blank
// line; "data file" names a detached data file (.nhdr). Lists, format
// strings, "byte skip" and compressed encodings are left to NrrdIO.
void check_nrrd_data_length(const std::string& path, std::uint64_t data_bytes) {
  namespace fs = std::filesystem;
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::string encoding, data_file;
  std::size_t pos = 0;
  std::size_t header_end = std::string::npos;
  while (pos < head.size()) {
    const std::size_t eol = head.find('\n', pos);
    if (eol == std::string::npos) return;  // no end of header in 64 KiB: let NrrdIO judge
    std::string line = head.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      header_end = pos;
      break;
    }
    const auto colon = line.find(": ");
    if (colon == std::string::npos || line[0] == '#') continue;
    const std::string key = line.substr(0, colon);
    const std::string value = line.substr(colon + 2);
    if (key == "encoding") encoding = value;
    else if (key == "data file" || key == "datafile") data_file = value;
    else if (key == "byte skip" || key == "byteskip" || key == "line skip" || key == "lineskip") return;
  }
  if (encoding != "raw") return;
  std::error_code ec;
  std::uint64_t have = 0;
  if (data_file.empty()) {
    if (header_end == std::string::npos) return;  // a header without data (detached, no "data file")
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) return;
    have = size > header_end ? size - header_end : 0;
  } else {
    if (data_file.rfind("LIST", 0) == 0 || data_file.find('%') != std::string::npos || data_file.find(' ') != std::string::npos)
      return;
    fs::path file(data_file);
    if (file.is_relative()) file = fs::path(path).parent_path() / file;
    have = fs::file_size(file, ec);
    if (ec) throw DataError(path, "its data file " + file.string() + " cannot be read (" + ec.message() + ")");
  }
  if (have < data_bytes)
    throw DataError(path, "truncated: holds " + std::to_string(have) + " of " + std::to_string(data_bytes) +
                              " bytes of voxel data");
}

// Runs the checks of the file comment on what `io` read from the header.
// Returns the axis lengths (for the check after reading).
std::array<std::size_t, 3> check_header(const std::string& path, itk::ImageIOBase& io,
                                        const VolumeReadOptions& options) {
  auto fail = [&](const std::string& reason) { throw DataError(path, reason); };
  const unsigned ndim = io.GetNumberOfDimensions();
  std::vector<std::int64_t> dims;
  for (unsigned i = 0; i < ndim; ++i) dims.push_back(static_cast<std::int64_t>(io.GetDimensions(i)));
  for (unsigned i = 0; i < ndim; ++i)
    if (dims[i] < 1) fail("axis " + std::to_string(i + 1) + " has length " + std::to_string(dims[i]) + ", must be >= 1");
  const unsigned components = io.GetNumberOfComponents();
  if (components != 1)
    fail("has " + std::to_string(components) + " components per voxel (pixel type " +
         itk::ImageIOBase::GetPixelTypeAsString(io.GetPixelType()) + "); only scalar volumes are read");
  if (io.GetComponentType() == itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE) fail("has an unknown voxel type");
  // The count before the shape, as in the NIfTI guard.
  const std::uint64_t voxels = checked_voxel_count(path, dims, options);
  const std::uint64_t bytes = checked_data_bytes(path, voxels, io.GetComponentSize(), options);
  if (ndim < 3)
    fail("has " + std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") + " (" + dims_text(dims) +
         "); only 3D volumes are read");
  for (unsigned i = 3; i < ndim; ++i)
    if (dims[i] > 1)
      fail("is a " + std::to_string(ndim) + "D image (" + dims_text(dims) + ", axis " + std::to_string(i + 1) +
           " has length " + std::to_string(dims[i]) + "); only 3D volumes are read");

  static const char* axes[] = {"x", "y", "z"};
  for (unsigned i = 0; i < 3; ++i) {
    const double s = io.GetSpacing(i);
    if (!std::isfinite(s) || s <= 0)
      fail(std::string(axes[i]) + " spacing is " + num(s) + ", must be a finite number > 0");
    if (!std::isfinite(io.GetOrigin(i))) fail("the origin is not finite");
  }
  // Columns = axis directions. ITK would accept a singular or skewed matrix
  // and every physical-space computation downstream would be wrong.
  double d[3][3];
  for (unsigned c = 0; c < 3; ++c) {
    const std::vector<double> column = io.GetDirection(c);
    for (unsigned r = 0; r < 3; ++r) {
      d[r][c] = r < column.size() ? column[r] : 0.0;
      if (!std::isfinite(d[r][c])) fail("the direction matrix is not finite");
    }
  }
  for (unsigned a = 0; a < 3; ++a)
    for (unsigned b = a; b < 3; ++b) {
      double dot = 0;
      for (unsigned r = 0; r < 3; ++r) dot += d[r][a] * d[r][b];
      const double want = a == b ? 1.0 : 0.0;
      if (std::abs(dot - want) > 1e-3)
        fail("the direction matrix is not a rotation (axes " + std::to_string(a + 1) + " and " +
             std::to_string(b + 1) + " have dot product " + num(dot) + ", expected " + num(want) + ")");
    }
  if (auto* meta = dynamic_cast<itk::MetaImageIO*>(&io)) check_meta_data_length(path, *meta, bytes);
  else check_nrrd_data_length(path, bytes);
  return {static_cast<std::size_t>(dims[0]), static_cast<std::size_t>(dims[1]), static_cast<std::size_t>(dims[2])};
}

}  // namespace

namespace {

const char* format_name(TextHeaderFormat format) { return format == TextHeaderFormat::nrrd ? "NRRD" : "MetaImage"; }

// ITK's ImageIO for `format` with the header of `path` read and checked.
struct CheckedHeader {
  itk::ImageIOBase::Pointer io;
  std::array<std::size_t, 3> size{};
};

CheckedHeader open_checked_header(const std::string& path, TextHeaderFormat format, const VolumeReadOptions& options) {
  CheckedHeader h;
  if (format == TextHeaderFormat::nrrd) h.io = itk::NrrdImageIO::New();
  else h.io = itk::MetaImageIO::New();
  // MetaImageIO::CanReadFile accepts only lower-case .mha/.mhd names, so
  // the header read itself is the test of what the file is.
  if (format == TextHeaderFormat::nrrd && !h.io->CanReadFile(path.c_str()))
    throw DataError(path, "not a NRRD file (no NRRD magic at its start)");
  h.io->SetFileName(path);
  try {
    h.io->ReadImageInformation();
  } catch (const itk::ExceptionObject& e) {
    throw DataError(path, std::string("ITK cannot read its ") + format_name(format) + " header: " + itk_reason(e));
  }
  h.size = check_header(path, *h.io, options);
  return h;
}

// Runs `body`, turning whatever ITK or the allocator throws into a DataError naming `path`.
template <class Body>
auto naming_the_file(const std::string& path, TextHeaderFormat format, Body&& body) {
  try {
    return body();
  } catch (const Error&) {
    throw;
  } catch (const itk::ExceptionObject& e) {
    throw DataError(path, std::string("ITK cannot read it as ") + format_name(format) + ": " + itk_reason(e));
  } catch (const std::bad_alloc&) {
    throw DataError(path, "out of memory while reading it");
  } catch (const std::exception& e) {
    throw DataError(path, std::string("cannot read it: ") + e.what());
  }
}

}  // namespace

namespace {

Volume read_checked(const std::string& path, const CheckedHeader& header) {
  auto reader = itk::ImageFileReader<FloatImage>::New();
  reader->SetImageIO(header.io);
  reader->SetFileName(path);
  reader->Update();
  Volume volume = volume_from_image(*reader->GetOutput());
  if (volume.size != header.size) throw DataError(path, "ITK read a volume of another size than its header declares");
  return volume;
}

}  // namespace

HeaderGrid check_nrrd_or_meta_header(const std::string& path, TextHeaderFormat format,
                                     const VolumeReadOptions& options) {
  return naming_the_file(path, format, [&] {
    const CheckedHeader header = open_checked_header(path, format, options);
    HeaderGrid grid;
    grid.size = header.size;
    for (unsigned d = 0; d < 3 && d < header.io->GetNumberOfDimensions(); ++d)
      grid.spacing[d] = header.io->GetSpacing(d);
    // Only float data can hold NaN/Inf; the NIfTI guard finds them before
    // training too, so these files are read once here (one at a time).
    const auto type = header.io->GetComponentType();
    if (!options.reject_non_finite || (type != itk::IOComponentEnum::FLOAT && type != itk::IOComponentEnum::DOUBLE))
      return grid;
    const Volume volume = read_checked(path, header);
    const auto bad = std::count_if(volume.voxels.begin(), volume.voxels.end(), [](float x) { return !std::isfinite(x); });
    if (bad > 0) throw DataError(path, "contains " + std::to_string(bad) + " non-finite voxels (NaN or Inf)");
    return grid;
  });
}

Volume read_nrrd_or_meta(const std::string& path, TextHeaderFormat format, const VolumeReadOptions& options) {
  return naming_the_file(path, format, [&] { return read_checked(path, open_checked_header(path, format, options)); });
}

}  // namespace medsynth::itk_detail

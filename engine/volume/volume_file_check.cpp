#include "volume/volume_file_check.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/volume_file_names.hpp"
#include "volume/itk_volume_io.hpp"
#include "volume/nifti_header_guard.hpp"

namespace medsynth {

HeaderGrid check_volume_file(const std::string& path, const VolumeReadOptions& options) {
  const std::size_t ext_length = volume_extension_length(path);
  if (ext_length == 0)
    throw DataError(path, "unsupported file type: expected " + std::string(k_volume_file_extensions_text));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw DataError(path, "no such file");
  std::string ext = path.substr(path.size() - ext_length);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".nii" || ext == ".nii.gz") {
    const NiftiHeaderInfo info = check_nifti_file(path, options);
    HeaderGrid grid;
    for (int d = 0; d < 3; ++d) {
      grid.size[d] = static_cast<std::size_t>(info.size[d]);
      grid.spacing[d] = info.spacing[d];
    }
    return grid;
  }
  const auto format =
      ext == ".nrrd" || ext == ".nhdr" ? itk_detail::TextHeaderFormat::nrrd : itk_detail::TextHeaderFormat::meta;
  return itk_detail::check_nrrd_or_meta_header(path, format, options);
}

}  // namespace medsynth

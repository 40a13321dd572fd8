// What file names count as volumes, in one place: the extensions read_volume
// reads (NIfTI-1, NRRD, MetaImage), the id a volume gets from its name, and
// the pairing rule of a label map beside its image (X_image.EXT -> X_label.EXT,
// as `generate --label` writes them). Used by the job validation
// (medsynth_config), the training data listing (data/volume_listing), the
// evaluate verb and the per-label HU check. Header-only and without
// LibTorch/ITK, like the rest of core/, so the console may include it too.
#pragma once

#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace medsynth {

// Matched in any case. ".nii.gz" before ".nii" so the stem of x.nii.gz is "x".
inline constexpr std::array<std::string_view, 6> k_volume_file_extensions{".nii.gz", ".nii", ".nrrd", ".nhdr",
                                                                          ".mha", ".mhd"};

// For messages: "(.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd)".
inline constexpr std::string_view k_volume_file_extensions_text = ".nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd";

// The length of the volume extension `name` ends with (any case), 0 if none.
inline std::size_t volume_extension_length(std::string_view name) {
  for (std::string_view ext : k_volume_file_extensions) {
    if (name.size() <= ext.size()) continue;  // a bare ".nii" is a hidden file, not a volume
    const std::string_view tail = name.substr(name.size() - ext.size());
    bool same = true;
    for (std::size_t i = 0; i < ext.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(tail[i])) == ext[i];
    if (same) return ext.size();
  }
  return 0;
}

// The NIfTI extension `path` ends with, in its own case (".nii.gz", ".NII"),
// or "" for any other name: the writers keep the user's spelling.
inline std::string nifti_extension(std::string_view path) {
  const std::size_t length = volume_extension_length(path);
  const std::string_view tail = path.substr(path.size() - length);
  std::string lower(tail);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == ".nii.gz" || lower == ".nii" ? std::string(tail) : std::string();
}

// "ct.NRRD" -> true; "notes.txt", "x.nii.bak", "x.raw" (a .mhd's data file) -> false.
inline bool is_volume_file_name(std::string_view name) { return volume_extension_length(name) > 0; }

// "case_001.nii.gz" -> "case_001", "mr.mha" -> "mr"; other names unchanged.
inline std::string volume_file_stem(std::string_view name) {
  return std::string(name.substr(0, name.size() - volume_extension_length(name)));
}

// The label map that pairs with an image by name, whether or not it exists:
// ".../X_image.nrrd" -> ".../X_label.nrrd" (the image's own extension and
// case). nullopt when `image_path` is not named X_image.EXT.
inline std::optional<std::string> paired_label_name(std::string_view image_path) {
  const std::size_t ext = volume_extension_length(image_path);
  constexpr std::string_view image = "_image";
  if (ext == 0 || image_path.size() < ext + image.size()) return std::nullopt;
  const std::string_view stem = image_path.substr(0, image_path.size() - ext);
  if (stem.substr(stem.size() - image.size()) != image) return std::nullopt;
  return std::string(stem.substr(0, stem.size() - image.size())) + "_label" +
         std::string(image_path.substr(image_path.size() - ext));
}

}  // namespace medsynth

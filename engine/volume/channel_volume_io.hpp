// Volumes with channels on NIfTI's 4th axis: [X, Y, Z, C] float32, the layout
// NVIDIA's NV-Generate-CTMR stores latent embeddings in (<image>_emb.nii.gz,
// written with nibabel from the latent transposed to channels last). Called
// by the MAISI-layout embedding files (engine/diffusion/maisi_embedding_files.cpp).
// ITK does the IO (itk_channel_volume_io.cpp), after the NIfTI header guard
// has checked the file; no ITK or torch type here.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "volume/volume_io.hpp"

namespace medsynth {

struct ChannelVolume {
  std::array<std::size_t, 3> size{0, 0, 0};                    // voxels along x, y, z
  std::size_t channels = 0;                                    // the 4th axis
  std::array<double, 3> spacing{1.0, 1.0, 1.0};                // mm
  std::array<double, 3> origin{0.0, 0.0, 0.0};                 // mm, LPS, centre of voxel (0,0,0)
  std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major 3x3, columns = axis directions
  std::vector<float> voxels;                                   // NIfTI's order: x fastest, then y, z, channel

  std::size_t voxel_count() const { return size[0] * size[1] * size[2] * channels; }
};

// Reads a .nii/.nii.gz whose header passes check_nifti_channel_file and has a
// 4th axis (dim[0] >= 4; one channel is dim[4] = 1), as float. DataError(path,
// reason) for anything else, a 3D file included: it names the dims it found.
ChannelVolume read_channel_volume(const std::string& path, const VolumeReadOptions& options = {});

// Writes float32 NIfTI-1 with dim[0] = 4 (dim[4] = channels, pixdim[4] = 1),
// geometry kept, atomically (temp file beside the target, read back, then
// rename). StorageError naming the path for a full disk or file-size limit,
// RuntimeError naming it for any other failure.
void write_channel_volume(const ChannelVolume& volume, const std::string& path);

}  // namespace medsynth

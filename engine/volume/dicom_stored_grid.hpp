// How a volume's voxels are laid out when stored as DICOM slices: which of its
// axes are stored reversed, and the geometry of the grid as stored. A volume
// from a NIfTI in RAS (every MAISI output) has row and column directions
// (-1,0,0) and (0,-1,0) in LPS; stored as they are, a PACS or OHIF stack view,
// which draws the stored pixels without reorienting, shows the patient's left
// on the screen's left and anterior at the bottom. Scanners store axial CT as
// [1,0,0,0,1,0] (issue 53 item 2): rows run to the patient's left, columns to
// the back, and, on coronal or sagittal planes, down to the feet.
#pragma once

#include <array>
#include <cstddef>

#include "volume/volume.hpp"

namespace medsynth {

struct DicomStoredGrid {
  std::array<bool, 3> reversed{false, false, false};  // volume axis a is stored from its last index
  std::array<double, 9> direction{};                  // as Volume::direction, of the stored grid
  std::array<double, 3> origin{};                     // the first stored voxel's centre (LPS, mm)
  std::array<std::size_t, 3> size{};

  // The volume's index along axis `a` of stored index `i`.
  std::size_t source(int a, std::size_t i) const {
    return reversed[static_cast<std::size_t>(a)] ? size[static_cast<std::size_t>(a)] - 1 - i : i;
  }
  // The volume's voxel index of stored voxel (column, row, slice).
  std::size_t source_index(std::size_t column, std::size_t row, std::size_t slice) const {
    return (source(2, slice) * size[1] + source(1, row)) * size[0] + source(0, column);
  }
};

// The grid a scanner would store: each in-plane axis turned to run to the
// patient's left (+x), back (+y) or feet (-z), whichever it mostly points
// along; then the slices reversed where needed for DICOM's normal (row x
// column) to be the direction in which slices advance.
DicomStoredGrid scanner_stored_grid(const Volume& volume);

// The grid matching a series' ImageOrientationPatient (row cosines, then
// column cosines): an in-plane axis is reversed where it is the opposite of
// the series' one; the slices keep their order (a SEG finds each slice by its
// position). Axes that match neither way are left as they are, for the
// caller's grid check to name.
DicomStoredGrid stored_grid_matching(const Volume& volume, const std::array<double, 6>& orientation);

}  // namespace medsynth

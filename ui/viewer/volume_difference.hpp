// A - B of two volumes on the same grid, for CompareWidget's difference view.
// Pure (no Qt widgets, no VTK) and unit-tested. Grids "match" when size,
// spacing, origin and direction agree within a tolerance; otherwise the
// reason names what differs so the widget can say it instead of guessing.
#pragma once

#include <memory>

#include <QString>

#include "volume/volume.hpp"

namespace medsynth::ui {

struct GridTolerance {
  double spacing_mm = 1e-4;
  double origin_mm = 1e-3;
  double direction = 1e-5;  // ITK stores directions as float quaternions (~1e-8 error)
};

// Empty when the grids match, else e.g. "size differs: 64x64x32 vs 64x64x30".
QString grid_mismatch(const Volume& a, const Volume& b, const GridTolerance& tolerance = {});

struct DifferenceResult {
  std::shared_ptr<const Volume> volume;  // null when the grids differ
  QString error;                         // why there is no difference image
  double max_abs = 0.0;                  // largest |A - B| over finite voxels
};

// A - B with A's geometry. NaN/Inf in either input give NaN in the output.
DifferenceResult difference_volume(const Volume& a, const Volume& b, const GridTolerance& tolerance = {});

}  // namespace medsynth::ui

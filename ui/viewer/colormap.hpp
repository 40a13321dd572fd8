// Colormaps of the slice views: grey, hot, a perceptual one (viridis-like,
// lightness rising monotonically so that brighter always means more) and a
// diverging blue-white-red one for difference images. Control points are ours;
// the VTK lookup tables are built from them in vtk_volume_bridge.cpp. Pure
// functions so that unit tests can check them without a display.
#pragma once

#include <array>
#include <span>

#include <QString>

namespace medsynth::ui {

enum class Colormap { grey, hot, perceptual, diverging };

struct ColorStop {
  double position;  // 0..1, strictly increasing within a map
  double r, g, b;   // sRGB, 0..1
};

using Rgb = std::array<double, 3>;

std::span<const ColorStop> colormap_stops(Colormap map);
// Linear interpolation between the stops; t is clamped to [0, 1].
Rgb colormap_color(Colormap map, double t);
QString colormap_name(Colormap map);
// The maps offered for ordinary images (diverging is kept for differences).
std::span<const Colormap> image_colormaps();

// CIE L* (0..100) of an sRGB colour: the tests check that the perceptual map's
// lightness only rises.
double cie_lightness(const Rgb& srgb);

}  // namespace medsynth::ui

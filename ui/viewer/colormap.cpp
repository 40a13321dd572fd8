#include "ui/viewer/colormap.hpp"

#include <algorithm>
#include <cmath>

namespace medsynth::ui {

namespace {

constexpr std::array<ColorStop, 2> k_grey{{{0.0, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0, 1.0}}};

// Black -> red -> yellow -> white, the classic "hot" ramp.
constexpr std::array<ColorStop, 4> k_hot{{
    {0.0, 0.0, 0.0, 0.0},
    {0.375, 1.0, 0.0, 0.0},
    {0.75, 1.0, 1.0, 0.0},
    {1.0, 1.0, 1.0, 1.0},
}};

// Dark violet -> blue -> teal -> green -> yellow. Nine stops keep the linear
// interpolation close to a perceptually uniform ramp; lightness rises at
// every stop (checked by the unit test).
constexpr std::array<ColorStop, 9> k_perceptual{{
    {0.000, 0.267, 0.005, 0.329},
    {0.125, 0.283, 0.141, 0.458},
    {0.250, 0.254, 0.265, 0.530},
    {0.375, 0.207, 0.372, 0.553},
    {0.500, 0.164, 0.471, 0.558},
    {0.625, 0.128, 0.567, 0.551},
    {0.750, 0.135, 0.659, 0.518},
    {0.875, 0.478, 0.821, 0.318},
    {1.000, 0.993, 0.906, 0.144},
}};

// Blue -> near-white -> red, symmetric in lightness around the middle so that
// +d and -d look equally strong.
constexpr std::array<ColorStop, 5> k_diverging{{
    {0.00, 0.230, 0.299, 0.754},
    {0.25, 0.552, 0.690, 0.996},
    {0.50, 0.970, 0.970, 0.970},
    {0.75, 0.957, 0.604, 0.482},
    {1.00, 0.706, 0.016, 0.150},
}};

constexpr std::array<Colormap, 3> k_image_maps{Colormap::grey, Colormap::hot, Colormap::perceptual};

double srgb_to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

}  // namespace

std::span<const ColorStop> colormap_stops(Colormap map) {
  switch (map) {
    case Colormap::grey: return k_grey;
    case Colormap::hot: return k_hot;
    case Colormap::perceptual: return k_perceptual;
    case Colormap::diverging: return k_diverging;
  }
  return k_grey;
}

Rgb colormap_color(Colormap map, double t) {
  const auto stops = colormap_stops(map);
  if (!(t > stops.front().position)) return {stops.front().r, stops.front().g, stops.front().b};
  if (t >= stops.back().position) return {stops.back().r, stops.back().g, stops.back().b};
  const auto upper = std::upper_bound(stops.begin(), stops.end(), t,
                                      [](double value, const ColorStop& s) { return value < s.position; });
  const ColorStop& b = *upper;
  const ColorStop& a = *(upper - 1);
  const double f = (t - a.position) / (b.position - a.position);
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

QString colormap_name(Colormap map) {
  switch (map) {
    case Colormap::grey: return QStringLiteral("Grey");
    case Colormap::hot: return QStringLiteral("Hot");
    case Colormap::perceptual: return QStringLiteral("Perceptual");
    case Colormap::diverging: return QStringLiteral("Diverging");
  }
  return {};
}

std::span<const Colormap> image_colormaps() { return k_image_maps; }

double cie_lightness(const Rgb& srgb) {
  const double y = 0.2126 * srgb_to_linear(srgb[0]) + 0.7152 * srgb_to_linear(srgb[1]) +
                   0.0722 * srgb_to_linear(srgb[2]);
  return y > 216.0 / 24389.0 ? 116.0 * std::cbrt(y) - 16.0 : y * 24389.0 / 27.0;
}

}  // namespace medsynth::ui

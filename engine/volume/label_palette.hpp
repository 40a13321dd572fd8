// The colours of label values, one table for every place that shows a label:
// the viewer's overlay (ui/viewer/label_map) and the segment colours of a
// DICOM-SEG export (volume/dicom_seg_export), so a segment looks the same in
// medsynth and in Slicer. Slot 0 is transparent; slots 1..12 are hand-picked
// saturated colours, distinct from each other and from grey levels, in the
// order that puts a small label map's most common labels on clearly different
// hues; 13..255 follow a golden-angle hue walk (full saturation, alternating
// lightness); values above 255 repeat 1..255, negative values count as 0,
// non-integer values are rounded to the nearest integer.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace medsynth {

// Colour-table slots: 0 (transparent) and 1..255.
inline constexpr int k_label_palette_slots = 256;

using LabelColour = std::array<double, 3>;  // sRGB, each in [0, 1]

// The slot a voxel value is drawn with (0..255; 0 = transparent).
inline std::uint8_t label_palette_slot(float value) {
  if (!std::isfinite(value)) return 0;
  const double rounded = std::nearbyint(static_cast<double>(value));
  if (rounded <= 0.0) return 0;
  const auto v = static_cast<std::uint64_t>(std::min(rounded, 1e18));
  return static_cast<std::uint8_t>(1 + (v - 1) % (k_label_palette_slots - 1));
}

// The colour of a slot (1..255); slot 0 has none (black is returned).
inline LabelColour label_palette_colour(int slot) {
  constexpr std::array<LabelColour, 12> hand_picked{{
      {0.90, 0.10, 0.10},  // 1 red
      {0.10, 0.75, 0.20},  // 2 green
      {0.15, 0.40, 1.00},  // 3 blue
      {1.00, 0.85, 0.10},  // 4 yellow
      {0.85, 0.20, 0.85},  // 5 magenta
      {0.10, 0.85, 0.85},  // 6 cyan
      {1.00, 0.55, 0.10},  // 7 orange
      {0.55, 0.30, 0.95},  // 8 violet
      {0.60, 0.90, 0.25},  // 9 lime
      {0.95, 0.45, 0.60},  // 10 pink
      {0.55, 0.35, 0.15},  // 11 brown
      {0.20, 0.55, 0.55},  // 12 teal
  }};
  if (slot <= 0 || slot >= k_label_palette_slots) return {0.0, 0.0, 0.0};
  if (slot <= static_cast<int>(hand_picked.size())) return hand_picked[static_cast<std::size_t>(slot - 1)];
  constexpr double golden = 0.618033988749895;
  const double hue = std::fmod(0.03 + slot * golden, 1.0);
  const double saturation = 0.85, lightness = slot % 2 == 0 ? 0.50 : 0.62;
  const auto channel = [&](double n) {  // HSL -> RGB, one channel
    const double k = std::fmod(n + hue * 12.0, 12.0);
    const double a = saturation * std::min(lightness, 1.0 - lightness);
    return lightness - a * std::max(-1.0, std::min({k - 3.0, 9.0 - k, 1.0}));
  };
  return {channel(0.0), channel(8.0), channel(4.0)};
}

}  // namespace medsynth

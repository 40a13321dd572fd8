// Transfer functions of the 3D view: CT bone, CT soft tissue (Hounsfield
// units) and MRI (relative to the volume's percentile range, since MR
// intensities have no absolute scale). Pure data so that the unit tests check
// them; vtk_volume_bridge.cpp turns the points into VTK transfer functions.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <QString>

#include "ui/viewer/window_level.hpp"

namespace medsynth::ui {

enum class VolumePreset { ct_bone, ct_soft_tissue, mri };

struct TransferPoint {
  double value;    // voxel intensity
  double r, g, b;  // 0..1
  double opacity;  // 0..1 per unit of sample distance (VTK's scalar opacity)
};

std::span<const VolumePreset> volume_presets();
QString volume_preset_name(VolumePreset preset);

// The points for this preset, values strictly increasing. CT presets ignore
// `stats`; the MRI preset maps its ramp onto [stats.low, stats.high].
std::vector<TransferPoint> transfer_function(VolumePreset preset, const IntensityStats& stats);

// CT bone when the volume looks like Hounsfield units (air near -1000 and
// something denser than water), else MRI.
VolumePreset suggest_volume_preset(const IntensityStats& stats);

// The preset of a volume: the one its recorded modality ("ct", "mri": a
// medsynth provenance's) names, else suggest_volume_preset's guess, said to
// be one (issue 38: a real MRI got "CT bone", a generated CT with a 172 HU
// maximum "MRI").
struct PresetChoice {
  VolumePreset preset = VolumePreset::mri;
  bool guessed = true;
};
PresetChoice choose_volume_preset(const IntensityStats& stats, const std::string& recorded_modality);

}  // namespace medsynth::ui

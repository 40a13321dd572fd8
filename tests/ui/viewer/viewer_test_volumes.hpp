// Synthetic volumes with known values and geometry for the viewer's tests,
// written as real NIfTI files through medsynth_volume's write_volume, plus
// corrupt files and small image statistics used by the GUI assertions.
#pragma once

#include <QImage>
#include <QPointF>
#include <QString>

#include "contract/generation_provenance.hpp"
#include "ui/viewer/volume_geometry.hpp"
#include "volume/volume.hpp"

namespace medsynth::viewer_test {

using ui::Vec3;

// 24x20x16 voxels, spacing 0.8 x 1.2 x 2.5 mm, rotated 30 degrees about z,
// origin (-10, 5, 20): value = ramp_value(i, j, k).
Volume ramp_volume();
float ramp_value(std::int64_t i, std::int64_t j, std::int64_t k);

// A CT-like phantom in Hounsfield units: air -1000 around a 40 HU body with
// two -800 HU lungs and a 700 HU spine. 48x48x32, spacing 1 x 1 x 2 mm.
Volume ct_phantom();

// 40x40x30 voxels, spacing 1 x 1 x 1.5 mm, direction diag(-1, -1, 1) (a
// RAS-stored NIfTI as ITK reads it), centred near the world origin: value 0
// except 1000 inside marker_box(), which lies on the patient's left (+x),
// anterior (-y) and superior (+z) side.
Volume marker_volume();
struct Box {
  Vec3 min, max;
};
Box marker_box();
Vec3 marker_center();

// A generated volume's provenance (seed 1234, rectified_flow 30 steps, UNet
// unet-last.safetensors sha256 0123456789abcdef, autoencoder sha256
// fedcba9876543210), no job; for the DICOM export tests.
GenerationProvenance sample_provenance();

// Writes with medsynth::write_volume; returns the path.
QString write_nifti(const Volume& volume, const QString& path);
// A copy of a valid .nii.gz cut to half its bytes.
QString write_truncated_copy(const QString& valid_path, const QString& out_path);
// Random bytes under a NIfTI name.
QString write_garbage(const QString& path);

// $MEDSYNTH_ENGINE, else the medsynth-engine of this build tree; empty when
// neither is an executable (the tests that generate say so).
QString engine_program();

// Where tests leave screenshots for people to look at (created on demand).
QString test_output_dir();

// Image statistics over the grey level (R+G+B)/3.
double image_stddev(const QImage& image);
double mean_abs_difference(const QImage& a, const QImage& b);
// Centroid of the pixels brighter than `threshold`; *count gets how many.
QPointF bright_centroid(const QImage& image, int threshold, int* count);

}  // namespace medsynth::viewer_test

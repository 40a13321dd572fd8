// Pure rules of the viewer's label overlay (issue 17.5), kept free of VTK and
// widgets so that unit tests check them without a display:
//  - the fixed colour table, as Qt-side types: volume/label_palette.hpp holds
//    it, shared with the DICOM-SEG export (label 0 transparent, 1..12
//    hand-picked, then a golden-angle hue walk);
//  - the grid check: a label map is drawn on the image's own voxel grid, so
//    both must have the same size, spacing, origin and direction;
//  - the pairing rule of generated samples: X_image.nii.gz beside X_label.nii.gz
//    (any volume extension: X_image.nrrd beside X_label.nrrd; core/volume_file_names.hpp).
// Used by LabelOverlayLayer (VTK), VolumeViewerWidget and the tests.
#pragma once

#include <cstdint>

#include <QString>

#include "ui/viewer/colormap.hpp"
#include "volume/label_palette.hpp"
#include "volume/volume.hpp"

namespace medsynth::ui {

// Colour-table slots: 0 (transparent) and 1..255.
constexpr int k_label_slots = k_label_palette_slots;

// The slot a voxel value is drawn with (0..255; 0 = transparent).
std::uint8_t label_slot(float value);
// The colour of a slot (1..255); slot 0 has none (black is returned).
Rgb label_color(int slot);

// Empty when `label` can be drawn over `image`; otherwise one message naming
// both files and what differs (size first, then spacing, origin, direction).
QString label_grid_mismatch(const Volume& image, const Volume& label, const QString& image_name,
                            const QString& label_name);

// "…/x_image.nii.gz" -> "…/x_label.nii.gz" (also .nii, .nrrd, .nhdr, .mha,
// .mhd, the image's extension kept); empty for other names.
QString sibling_label_path(const QString& image_path);

// Where the label editor saves without asking (issue 39.2), never the file
// the map was opened from, always NIfTI (write_volume's format):
//   ".../X_label.nrrd"           -> ".../X_label-edited.nii.gz"
//   ".../X_label-edited.nii.gz"  -> itself (the editor's own file, saved again)
//   no file (painted over ".../ct.nii.gz") -> ".../ct-painted_label.nii.gz"
//   ".../ct-painted_label.nii.gz" -> itself (the editor's own file)
QString edited_label_path(const QString& label_path, const QString& image_path);

}  // namespace medsynth::ui

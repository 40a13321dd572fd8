// A MAISI label map with its tumours given back to the organ they sit in:
// NV-Generate's remove_tumors (scripts/augmentation.py), used twice there and
// here: the ControlNet's region-contrastive loss compares the prediction for
// a label with the one for its tumour-free counterpart
// (diffusion/controlnet_task.cpp), and image-from-mask guidance steers its
// unconditional pass with the tumour-free label (diffusion/controlnet_guidance.cpp).
//
// What changes, in MAISI's CT vocabulary (resources/labels/maisi-ct):
//  - hepatic tumour 26 -> liver 1, pancreatic tumour 24 -> pancreas 4,
//    colon cancer primaries 27 -> colon 62, BraTS tumour 401/402/403 and
//    brain lesion 176 -> brain 22;
//  - lung tumour 23 -> the lung lobe (28-32) that is most frequent in its
//    one-voxel ring (the tumour dilated by a 3x3x3 cube, the volume's border
//    counting as dilated as NV-Generate pads with 1, minus the tumour); a ring
//    with no lobe takes the lobe most frequent in the whole map, ties to the
//    lowest value (NV-Generate: argmax over 28..32, the first of equals);
//  - bone lesion 128 stays: NV-Generate replaces it only from pseudo labels
//    that neither of its callers passes.
#pragma once

#include <ATen/core/Tensor.h>

namespace medsynth {

// `labels`: one label map, 3 spatial axes in any order (the rules are the same
// along every axis), any integer or floating dtype holding whole values.
// Returns a new tensor of the same shape, dtype and device.
at::Tensor tumour_free_label(const at::Tensor& labels);

}  // namespace medsynth

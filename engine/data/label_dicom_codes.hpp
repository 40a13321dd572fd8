// How a DICOM-SEG export describes the labels of a MAISI CT label map: each
// value's segment name, coded category and type, laterality and colour
// (issue 39). The codes are resources/labels/maisi-ct-dicom.json (compiled
// in); the colour is the viewer's (volume/label_palette.hpp), so a segment
// looks the same in medsynth and in Slicer.
#pragma once

#include <vector>

#include "volume/dicom_seg_export.hpp"

namespace medsynth {

// One segment per value: MAISI CT's class name and codes, or "label N" with a
// private code for a value that is not a MAISI CT class.
std::vector<DicomSegment> maisi_ct_segments(const std::vector<int>& labels);

// The private scheme those segments' codes use where DICOM has no code, for
// DicomSegOptions::coding_schemes.
DicomCodingScheme maisi_ct_private_coding_scheme();

}  // namespace medsynth

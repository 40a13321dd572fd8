// Writing a label map as a DICOM Segmentation (SEG) object that references a
// DICOM image series: the CT that write_dicom_series exported from the
// generated image, or any CT/MR series the label map was drawn on (issue 39).
// Binary segmentation, one segment per label value, one frame per segment and
// slice that has any voxel of it (empty frames are left out, as dcmqi does);
// each frame names the image slice it was derived from, and the object takes
// its patient, study and frame of reference from the series. Written through
// DCMTK's dcmseg (dcmtk_seg_writer.cpp, the only file that includes DCMTK);
// docs/dicom-export.md lists the tags and the codes.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

// A coded concept: scheme ("SCT" for SNOMED CT, "DCM", or a private "99..."),
// code value and meaning.
struct DicomCode {
  std::string scheme;
  std::string value;
  std::string meaning;
};

struct DicomSegment {
  int label = 0;                          // the voxel value it stands for (> 0)
  std::string name;                       // SegmentLabel, at most 64 characters
  DicomCode category;                     // Segmented Property Category (CID 7150)
  DicomCode type;                         // Segmented Property Type (CID 7151 or private)
  std::optional<DicomCode> modifier;      // Segmented Property Type Modifier (laterality: left, right)
  std::array<double, 3> colour{1, 0, 0};  // sRGB in [0, 1], written as CIELab
  // Anatomic Region (0008,2218) and its modifier: where a lesion type
  // (Neoplasm, Cyst) lies, so that a lung tumour and a liver tumour differ.
  std::optional<DicomCode> region;
  std::optional<DicomCode> region_modifier;
};

// A private coding scheme, as the SEG's Coding Scheme Identification
// Sequence (0008,0110) names it: DICOM asks for an item for every scheme that
// is not one of its own (PS3.3 C.12.1.1.2).
struct DicomCodingScheme {
  std::string designator;                // (0008,0102), "99..." for a private scheme
  std::string name;                      // (0008,0115)
  std::string responsible_organization;  // (0008,0116)
};

struct DicomSegOptions {
  // One entry per label value of the map; a value present in the map without
  // an entry is a UsageError (labels_in_map gives the values to describe).
  std::vector<DicomSegment> segments;
  // Each private scheme ("99...") a segment's code uses; a code of a private
  // scheme not described here is a UsageError.
  std::vector<DicomCodingScheme> coding_schemes;
  std::string series_description = "medsynth segmentation";  // (0008,103E), at most 64 characters
  std::string algorithm_name = "medsynth";                   // SegmentAlgorithmName
  std::string software_version = "unknown";                  // (0018,1020)
  // Names the label map in DataError messages (its path, typically).
  std::string source = "label map";
};

// The distinct label values (> 0) of a label map, ascending. DataError naming
// `source` for a value that is not a whole number, or above 65535.
std::vector<int> labels_in_map(const Volume& label, const std::string& source);

struct DicomSegWritten {
  std::string sop_instance_uid;       // the SEG object's
  std::string series_instance_uid;    // the SEG object's own series
  std::string referenced_series_uid;  // the image series it references
  std::size_t segments = 0;
  std::size_t frames = 0;
};

// Writes `label` as one SEG file `out_file` referencing the single image
// series in `series_dir` (other files there, a SEG among them, are skipped).
// The label map must lie on the series' grid: columns x rows = size x and y,
// the same row and column directions, and a series slice at the position of
// every label slice. The file is written aside and renamed into place; an
// existing out_file is refused.
// Throws UsageError (out_file exists, a segment option is bad or missing),
// DataError (`options.source`: non-integer labels, a grid that differs from
// the series, naming what differs; a series file: broken or inconsistent),
// RuntimeError/StorageError (DCMTK or the disk failed; nothing is left).
DicomSegWritten write_dicom_seg(const Volume& label, const DicomSegOptions& options, const std::string& series_dir,
                                const std::string& out_file);

}  // namespace medsynth

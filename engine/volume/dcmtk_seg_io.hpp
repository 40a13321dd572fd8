// The DCMTK half of write_dicom_seg (dicom_seg_export.cpp decides what goes
// into the object; dcmtk_seg_writer.cpp, the only file that includes DCMTK,
// reads the identifiers of the referenced images and writes the SEG). Internal
// to engine/volume.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "volume/dicom_seg_export.hpp"

namespace medsynth::dcmtk_detail {

// What a SEG needs from one image file of the referenced series.
struct ImageFileIds {
  std::string sop_class_uid, sop_instance_uid, series_uid, study_uid, frame_of_reference_uid;
  std::optional<std::array<double, 2>> pixel_spacing;  // (0028,0030): between rows, between columns (mm)
};

// Reads the identifiers of a file that passed check_dicom_file (pixel data
// and other long values are not loaded). DataError(path) for a file DCMTK
// cannot parse or one without SOP Class/Instance UIDs.
ImageFileIds read_image_ids(const std::string& path);

// One frame: a segment on one slice. Its pixels are not held here: the plan
// of a 512 x 512 x 1024 label with many classes would hold a byte per pixel
// of every frame (35 GB, issue 50 item 8); SegPlan::fill_frame makes each
// one as it is added, and DCMTK keeps it packed to bits.
struct SegFrame {
  std::uint16_t segment_number = 0;     // 1-based, in DicomSegOptions::segments order
  int label = 0;                        // the voxel value the segment stands for
  std::uint32_t slice = 0;              // the label slice (z index), 0-based
  std::array<double, 3> position{};     // ImagePositionPatient, mm (LPS)
  std::string source_sop_instance_uid;  // the image slice at that position
};

struct SegPlan {
  std::uint16_t rows = 0, columns = 0;
  std::array<double, 2> pixel_spacing{};  // between rows, between columns (mm)
  double slice_thickness = 1.0;
  std::array<double, 6> orientation{};  // ImageOrientationPatient
  std::string first_image_file;         // patient, study and frame of reference come from it
  std::string referenced_series_uid, referenced_study_uid, referenced_sop_class_uid;
  std::vector<std::string> referenced_instances;  // SOP Instance UIDs the frames derive from
  std::vector<DicomSegment> segments;
  std::vector<DicomCodingScheme> coding_schemes;  // the private schemes the segments' codes use
  std::vector<SegFrame> frames;
  // Writes a frame's rows x columns pixels (1 = in the segment) into the
  // buffer it is given (sized rows x columns); called once per frame, in order.
  std::function<void(const SegFrame&, std::vector<std::uint8_t>&)> fill_frame;
  std::string series_description, algorithm_name, software_version;
};

// Writes the SEG of `plan` to `path` (a new file). Returns its SOP Instance
// and Series UIDs. RuntimeError naming what DCMTK refused.
std::pair<std::string, std::string> save_segmentation(const SegPlan& plan, const std::string& path);

}  // namespace medsynth::dcmtk_detail

// Stands in for dcmtk_seg_writer.cpp in a build without DCMTK
// (MEDSYNTH_REQUIRE_DCMTK=OFF, a GPU node's engine-only build): the SEG
// export says why it cannot run instead of failing to link.
#include "core/error.hpp"
#include "volume/dcmtk_seg_io.hpp"

namespace medsynth::dcmtk_detail {

namespace {
[[noreturn]] void unavailable() {
  throw RuntimeError(
      "DICOM-SEG export: this medsynth-engine was built without DCMTK (install libdcmtk-dev and "
      "configure with MEDSYNTH_REQUIRE_DCMTK=ON)");
}
}  // namespace

ImageFileIds read_image_ids(const std::string&) { unavailable(); }

std::pair<std::string, std::string> save_segmentation(const SegPlan&, const std::string&) { unavailable(); }

}  // namespace medsynth::dcmtk_detail

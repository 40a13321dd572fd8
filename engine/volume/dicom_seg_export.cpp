#include "volume/dicom_seg_export.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "volume/atomic_file.hpp"
#include "volume/dcmtk_seg_io.hpp"
#include "volume/dicom_stored_grid.hpp"
#include "volume/dicom_file_guard.hpp"

namespace medsynth {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_segmentation_storage = "1.2.840.10008.5.1.4.1.1.66.4";

// A value DCMTK writes as SH/LO: printable ASCII without the DICOM value
// separator, not empty, at most `limit` characters.
void check_text(const std::string& value, std::size_t limit, const std::string& field) {
  if (value.empty()) throw UsageError("DICOM-SEG: " + field + " is empty");
  if (value.size() > limit)
    throw UsageError("DICOM-SEG: " + field + " '" + value + "' is longer than " + std::to_string(limit) +
                     " characters");
  for (const char c : value)
    if (c < 0x20 || c > 0x7e || c == '\\')
      throw UsageError("DICOM-SEG: " + field + " '" + value +
                       "' has a character other than printable ASCII or a backslash");
}

void check_options(const DicomSegOptions& options) {
  check_text(options.series_description, 64, "series_description");
  check_text(options.algorithm_name, 64, "algorithm_name");
  check_text(options.software_version, 64, "software_version");
  for (const auto& c : options.coding_schemes) {
    check_text(c.designator, 16, "coding scheme designator");
    check_text(c.name, 64, "coding scheme " + c.designator + " name");
    check_text(c.responsible_organization, 64, "coding scheme " + c.designator + " responsible organization");
  }
  std::set<int> seen;
  for (const auto& s : options.segments) {
    const std::string which = "segment " + std::to_string(s.label);
    if (s.label <= 0 || s.label > 65535) throw UsageError("DICOM-SEG: " + which + ": a label value must be 1..65535");
    if (!seen.insert(s.label).second) throw UsageError("DICOM-SEG: " + which + " is described twice");
    check_text(s.name, 64, which + " name");
    std::vector<std::pair<const DicomCode*, std::string>> codes = {{&s.category, " category"}, {&s.type, " type"}};
    if (s.modifier) codes.emplace_back(&*s.modifier, " type modifier");
    if (s.region) codes.emplace_back(&*s.region, " anatomic region");
    if (s.region_modifier) codes.emplace_back(&*s.region_modifier, " anatomic region modifier");
    for (const auto& [code, name] : codes) {
      const std::string part = which + name;
      check_text(code->scheme, 16, part + " coding scheme");
      check_text(code->value, 16, part + " code value");
      check_text(code->meaning, 64, part + " code meaning");
      if (code->scheme.rfind("99", 0) == 0 &&
          std::none_of(options.coding_schemes.begin(), options.coding_schemes.end(),
                       [&](const DicomCodingScheme& c) { return c.designator == code->scheme; }))
        throw UsageError("DICOM-SEG: " + part + ": private coding scheme '" + code->scheme +
                         "' is not described (DicomSegOptions::coding_schemes)");
    }
    for (const double c : s.colour)
      if (!(c >= 0.0 && c <= 1.0)) throw UsageError("DICOM-SEG: " + which + " colour: each channel must be in [0, 1]");
  }
}

bool uses(const DicomSegment& s, const DicomCodingScheme& scheme) {
  const auto in = [&](const std::optional<DicomCode>& code) { return code && code->scheme == scheme.designator; };
  return s.category.scheme == scheme.designator || s.type.scheme == scheme.designator || in(s.modifier) ||
         in(s.region) || in(s.region_modifier);
}

struct SeriesSlice {
  std::string path, sop_instance_uid;
  std::array<double, 3> position{};
};

struct ImageSeries {
  std::string first_file, series_uid, study_uid, sop_class_uid;
  std::uint32_t rows = 0, columns = 0;
  std::array<double, 6> orientation{};
  std::optional<std::array<double, 2>> pixel_spacing;
  std::vector<SeriesSlice> slices;
};

// The one image series of `dir` (a SEG or other non-image files are skipped).
ImageSeries read_image_series(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(dir + ": not a folder; the SEG references a DICOM image series folder");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  if (ec) throw DataError(dir, "cannot list the folder: " + ec.message());
  std::sort(files.begin(), files.end());
  ImageSeries series;
  for (const auto& file : files) {
    const auto info = check_dicom_file(file.string());
    if (!info || !info->has_pixels || info->modality == "SEG") continue;
    const auto ids = dcmtk_detail::read_image_ids(file.string());
    if (ids.sop_class_uid == k_segmentation_storage) continue;
    if (!info->position || !info->orientation)
      throw DataError(file.string(),
                      "no ImagePositionPatient or ImageOrientationPatient: a SEG cannot be placed on it");
    if (info->frames != 1)
      throw DataError(file.string(), "a multi-frame image; the SEG export references single-frame slices");
    if (series.slices.empty()) {
      series = {file.string(),      ids.series_uid,    ids.study_uid,
                ids.sop_class_uid,  info->rows,        info->columns,
                *info->orientation, ids.pixel_spacing, {}};
    } else if (ids.series_uid != series.series_uid) {
      throw DataError(dir, "holds more than one image series (" + series.series_uid + ", " + ids.series_uid +
                               "); give the folder of the one series the label map belongs to");
    } else if (info->rows != series.rows || info->columns != series.columns) {
      throw DataError(file.string(), "its slice size differs from the rest of the series");
    }
    series.slices.push_back({file.string(), ids.sop_instance_uid, *info->position});
  }
  if (series.slices.empty()) throw DataError(dir, "no DICOM image files: nothing for a SEG to reference");
  return series;
}

std::array<double, 3> axis(const DicomStoredGrid& grid, int a) {
  return {grid.direction[static_cast<std::size_t>(a)], grid.direction[static_cast<std::size_t>(3 + a)],
          grid.direction[static_cast<std::size_t>(6 + a)]};
}

std::string mm(const std::array<double, 3>& p) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "(%.3f, %.3f, %.3f) mm", p[0], p[1], p[2]);
  return buffer;
}

// Checks that the label map, stored as `grid`, lies on the series' grid,
// naming what differs.
void check_grid(const Volume& label, const DicomStoredGrid& grid, const ImageSeries& series, const std::string& source,
                const std::string& dir) {
  const std::string against = " (series " + dir + ")";
  if (label.size[0] != series.columns || label.size[1] != series.rows)
    throw DataError(source, "slices of " + std::to_string(label.size[0]) + " x " + std::to_string(label.size[1]) +
                                " voxels, the series has " + std::to_string(series.columns) + " x " +
                                std::to_string(series.rows) + against);
  const auto row = axis(grid, 0), column = axis(grid, 1);
  for (int i = 0; i < 3; ++i)
    if (std::fabs(row[static_cast<std::size_t>(i)] - series.orientation[static_cast<std::size_t>(i)]) > 1e-4 ||
        std::fabs(column[static_cast<std::size_t>(i)] - series.orientation[static_cast<std::size_t>(3 + i)]) > 1e-4)
      throw DataError(source,
                      "its row and column directions differ from the series' ImageOrientationPatient" + against);
  if (series.pixel_spacing) {
    const auto& s = *series.pixel_spacing;
    if (std::fabs(s[0] - label.spacing[1]) > 1e-3 * label.spacing[1] ||
        std::fabs(s[1] - label.spacing[0]) > 1e-3 * label.spacing[0])
      throw DataError(source, "voxel spacing " + std::to_string(label.spacing[0]) + " x " +
                                  std::to_string(label.spacing[1]) + " mm, the series' PixelSpacing is " +
                                  std::to_string(s[1]) + " x " + std::to_string(s[0]) + " mm" + against);
  }
}

// The series slice at the position of label slice z.
const SeriesSlice& slice_at(const Volume& label, const DicomStoredGrid& grid, std::size_t z, const ImageSeries& series,
                            const std::string& source, const std::string& dir) {
  const auto normal = axis(grid, 2);
  std::array<double, 3> p{};
  for (std::size_t i = 0; i < 3; ++i) p[i] = grid.origin[i] + static_cast<double>(z) * label.spacing[2] * normal[i];
  const SeriesSlice* best = nullptr;
  double best_distance = 0;
  for (const auto& s : series.slices) {
    double d2 = 0;
    for (std::size_t i = 0; i < 3; ++i) d2 += (s.position[i] - p[i]) * (s.position[i] - p[i]);
    if (!best || d2 < best_distance) best = &s, best_distance = d2;
  }
  // A twentieth of a slice: far above DS rounding, far below a neighbouring slice.
  if (std::sqrt(best_distance) > 0.05 * label.spacing[2])
    throw DataError(source, "slice " + std::to_string(z) + " at " + mm(p) + " has no slice of series " + dir +
                                " at that position; the label map must lie on the series' grid");
  return *best;
}

// The options' segments of the labels the map has, each with its number.
struct NumberedSegments {
  std::vector<DicomSegment> segments;
  std::map<int, std::uint16_t> segment_number;  // label value -> segment number
};

NumberedSegments segments_of_labels(const DicomSegOptions& options, const std::vector<int>& values) {
  NumberedSegments numbered;
  std::vector<DicomSegment>& segments = numbered.segments;
  std::map<int, std::uint16_t>& segment_number = numbered.segment_number;
  // Segments in the options' order, those of labels the map has (a segment
  // without a frame would describe nothing); numbered from 1.
  for (const auto& s : options.segments)
    if (std::binary_search(values.begin(), values.end(), s.label)) {
      segments.push_back(s);
      segment_number[s.label] = static_cast<std::uint16_t>(segments.size());
    }
  for (const int v : values)
    if (!segment_number.count(v))
      throw UsageError("DICOM-SEG: label " + std::to_string(v) + " of " + options.source +
                       " has no segment description");
  return numbered;
}

// The SEG's header: its grid (the series'), the series it references, its
// segments and the coding schemes they use; no frames yet.
dcmtk_detail::SegPlan seg_plan_of(const Volume& label, const DicomSegOptions& options, const ImageSeries& series,
                                  const std::vector<DicomSegment>& segments) {
  dcmtk_detail::SegPlan plan;
  plan.rows = static_cast<std::uint16_t>(series.rows);
  plan.columns = static_cast<std::uint16_t>(series.columns);
  plan.pixel_spacing = {label.spacing[1], label.spacing[0]};
  plan.slice_thickness = label.spacing[2];
  plan.orientation = series.orientation;
  plan.first_image_file = series.first_file;
  plan.referenced_series_uid = series.series_uid;
  plan.referenced_study_uid = series.study_uid;
  plan.referenced_sop_class_uid = series.sop_class_uid;
  plan.segments = segments;
  for (const auto& scheme : options.coding_schemes)  // those the segments written use
    if (std::any_of(segments.begin(), segments.end(), [&](const DicomSegment& s) { return uses(s, scheme); }))
      plan.coding_schemes.push_back(scheme);
  plan.series_description = options.series_description;
  plan.algorithm_name = options.algorithm_name;
  plan.software_version = options.software_version;
  return plan;
}

// The label map on the grid it is stored as, and the series it lies on.
struct FrameSource {
  const Volume& label;
  const DicomStoredGrid& grid;
  const ImageSeries& series;
  const std::string& source;  // the label map's name, in errors
  const std::string& dir;     // the series folder, in errors
};

// plan.frames: each segment on each slice that has a voxel of it, in slice
// order; returns the SOP instance UIDs of the series slices they are on.
std::set<std::string> add_frames(dcmtk_detail::SegPlan& plan, const FrameSource& f, const NumberedSegments& numbered) {
  const Volume& label = f.label;
  const std::vector<DicomSegment>& segments = numbered.segments;
  const std::size_t plane = label.size[0] * label.size[1];
  std::vector<int> segment_of(65536, -1);  // voxel value -> index into segments
  for (std::size_t s = 0; s < segments.size(); ++s) segment_of[static_cast<std::size_t>(segments[s].label)] = int(s);
  std::set<std::string> referenced;
  std::vector<char> on_slice(segments.size());
  for (std::size_t z = 0; z < label.size[2]; ++z) {
    const SeriesSlice& source_slice = slice_at(label, f.grid, z, f.series, f.source, f.dir);
    const float* slice = label.voxels.data() + z * plane;
    std::fill(on_slice.begin(), on_slice.end(), 0);
    for (std::size_t i = 0; i < plane; ++i)
      if (slice[i] != 0.0f) on_slice[static_cast<std::size_t>(segment_of[static_cast<std::size_t>(slice[i])])] = 1;
    for (std::size_t s = 0; s < segments.size(); ++s) {
      if (!on_slice[s]) continue;
      dcmtk_detail::SegFrame frame;
      frame.segment_number = numbered.segment_number.at(segments[s].label);
      frame.label = segments[s].label;
      frame.slice = static_cast<std::uint32_t>(z);
      frame.position = source_slice.position;
      frame.source_sop_instance_uid = source_slice.sop_instance_uid;
      plan.frames.push_back(std::move(frame));
      referenced.insert(source_slice.sop_instance_uid);
    }
  }
  return referenced;
}

}  // namespace

std::vector<int> labels_in_map(const Volume& label, const std::string& source) {
  std::vector<char> present(65536, 0);  // a table, not a set: one step per voxel of a 512 x 512 x 1024 map
  for (const float v : label.voxels) {
    if (v == 0.0f) continue;
    if (!std::isfinite(v) || v != std::nearbyint(v) || v < 0.0f || v > 65535.0f)
      throw DataError(source, "voxel value " + std::to_string(v) +
                                  " is not a label (a whole number 0..65535); a SEG needs a label map");
    present[static_cast<std::size_t>(v)] = 1;
  }
  std::vector<int> values;
  for (std::size_t v = 1; v < present.size(); ++v)
    if (present[v]) values.push_back(static_cast<int>(v));
  return values;
}

DicomSegWritten write_dicom_seg(const Volume& label, const DicomSegOptions& options, const std::string& series_dir,
                                const std::string& out_file) {
  check_options(options);
  std::error_code ec;
  if (fs::exists(fs::symlink_status(out_file, ec)))
    throw UsageError(out_file + ": exists; the SEG export never writes over a file");
  const auto values = labels_in_map(label, options.source);
  if (values.empty()) throw DataError(options.source, "has no labels (every voxel is 0): a SEG needs a segment");
  const NumberedSegments numbered = segments_of_labels(options, values);
  const std::vector<DicomSegment>& segments = numbered.segments;

  const ImageSeries series = read_image_series(series_dir);
  // The label's in-plane axes turned as the series stores them (our own
  // export stores a RAS volume reversed in both, dicom_stored_grid.hpp).
  const DicomStoredGrid grid = stored_grid_matching(label, series.orientation);
  check_grid(label, grid, series, options.source, series_dir);
  dcmtk_detail::SegPlan plan = seg_plan_of(label, options, series, segments);

  // The frames: each segment on each slice that has a voxel of it (empty
  // frames are left out), found in one pass over each slice; their pixels
  // are made one at a time as DCMTK takes them (fill_frame).
  const std::set<std::string> referenced =
      add_frames(plan, FrameSource{label, grid, series, options.source, series_dir}, numbered);
  plan.fill_frame = [&](const dcmtk_detail::SegFrame& frame, std::vector<std::uint8_t>& pixels) {
    const float value = static_cast<float>(frame.label);
    for (std::size_t r = 0, i = 0; r < label.size[1]; ++r)
      for (std::size_t c = 0; c < label.size[0]; ++c, ++i)
        pixels[i] = label.voxels[grid.source_index(c, r, frame.slice)] == value ? 1 : 0;
  };
  // Frames in DCMTK's dimension order: by segment, then by slice.
  std::stable_sort(plan.frames.begin(), plan.frames.end(),
                   [](const auto& a, const auto& b) { return a.segment_number < b.segment_number; });
  plan.referenced_instances.assign(referenced.begin(), referenced.end());

  DicomSegWritten written;
  write_file_atomically(out_file, ".dcm", [&](const std::string& temp) {
    const auto [instance, own_series] = dcmtk_detail::save_segmentation(plan, temp);
    written.sop_instance_uid = instance;
    written.series_instance_uid = own_series;
  });
  written.referenced_series_uid = series.series_uid;
  written.segments = segments.size();
  written.frames = plan.frames.size();
  return written;
}

}  // namespace medsynth

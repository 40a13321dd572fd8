// Finding the volumes of a real-data job: the files of a folder
// (data.source: folder) or the rows of a CSV manifest (data.source: csv), and
// the train/val split of that list. Called by VolumeDataset; kept apart so
// that the rules (what counts as a volume, how the split is cut) are in one
// place and testable without LibTorch.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/job_spec.hpp"
#include "data/image_conditioning.hpp"

namespace medsynth {

struct VolumeEntry {
  std::string path;          // a volume file (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd), or a folder holding one DICOM series
  std::string id;            // file stem ("case_001" for case_001.nii.gz or case_001.nrrd) or folder name
  bool dicom_series = false;
  // From a CSV manifest: the line of the row and every cell by column name
  // (trimmed), so other readers (the survival table) report errors by line.
  std::string source;        // "manifest.csv:7"
  std::map<std::string, std::string> columns;
  // The image's own class and body regions, from its datalist entry or its
  // manifest row's columns of those names; empty: the job's.
  ImageConditioning conditioning;
  // The label map of the image's case: its datalist entry's "label", or the
  // data.label contrast of its case folder (BraTS "seg"); "": none listed
  // (a ControlNet then pairs X_image with X_label by name).
  std::string label;
};

// The file stem without its volume extension (core/volume_file_names.hpp),
// or the last path component for a folder.
std::string volume_id(const std::string& path);

// A file name read_volume reads: .nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd, any case.
bool is_volume_file_path(const std::string& path);

// A folder that holds at least one DICOM Part 10 file ("DICM" at byte 128),
// the files read_volume() reads from a series folder.
bool is_dicom_folder(const std::string& path);

// The volume files (is_volume_file_path) and DICOM series subfolders directly
// inside `folder`, sorted by name (hidden entries and other files skipped,
// e.g. the .raw data file beside a .mhd/.nhdr header). A label map beside
// its image (X_label.EXT where X_image.EXT is listed too, as `generate
// --label` writes them) belongs to the image and is not listed. Throws
// DataError(folder, ...) when it is missing, not a folder, or holds no volume
// ("no volumes (.nii, .nii.gz, ...)"), and when two entries would get the
// same id (case.nii.gz beside case.nrrd: one scan twice, and one
// reconstruction file for both). Files are checked when read, not here.
std::vector<VolumeEntry> list_volume_folder(const std::string& folder);

// A CSV manifest: a header row with a column `image` (other columns are
// ignored), then one row per volume; paths may be relative to the CSV's
// folder; RFC 4180 quoting; blank lines skipped. Rows keep their order.
// Errors are DataError("manifest.csv:7", "column 'image' is empty"): the
// manifest path plus the line number, then the problem (missing column,
// empty cell, wrong field count, a listed file that does not exist or is
// neither a volume file (is_volume_file_path) nor a DICOM folder, no rows at all).
std::vector<VolumeEntry> read_volume_manifest(const std::string& csv_path);

// The volumes of a real-data job (data.source folder, csv or datalist), in the order
// split_range() cuts into training and validation: the training set and the
// evaluation's reference set are both read from this one list. A folder of
// case folders and a datalist give one volume per case: the contrast
// data.channels names (case_listing.hpp), or a datalist entry's only image.
std::vector<VolumeEntry> list_job_volumes(const DataSpec& data);

// [begin, end) of the items of `split` when `count` sorted items are split:
// the last round(count * val_fraction) items are held out for "val", with at
// least one in each split when count >= 2 and val_fraction > 0. With a single
// item, "train" gets it and "val" is empty.
std::pair<std::size_t, std::size_t> split_range(std::size_t count, double val_fraction, bool validation);

}  // namespace medsynth

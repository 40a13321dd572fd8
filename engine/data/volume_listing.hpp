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

namespace medsynth {

struct VolumeEntry {
  std::string path;          // a .nii/.nii.gz file, or a folder holding one DICOM series
  std::string id;            // file stem ("case_001" for case_001.nii.gz) or folder name
  bool dicom_series = false;
  // From a CSV manifest: the line of the row and every cell by column name
  // (trimmed), so other readers (the survival table) report errors by line.
  std::string source;        // "manifest.csv:7"
  std::map<std::string, std::string> columns;
};

// The file stem without .nii/.nii.gz (or the last path component for a folder).
std::string volume_id(const std::string& path);

// .nii / .nii.gz, case-insensitive.
bool is_nifti_path(const std::string& path);

// A folder that holds at least one DICOM Part 10 file ("DICM" at byte 128),
// the files read_volume() reads from a series folder.
bool is_dicom_folder(const std::string& path);

// The .nii/.nii.gz files and DICOM series subfolders directly inside `folder`,
// sorted by name (hidden entries and other files skipped). Throws
// DataError(folder, ...) when it is missing, not a folder, or holds no volume
// ("no .nii/.nii.gz volumes"). DICOM folders are checked when read, not here.
std::vector<VolumeEntry> list_volume_folder(const std::string& folder);

// A CSV manifest: a header row with a column `image` (other columns are
// ignored), then one row per volume; paths may be relative to the CSV's
// folder; RFC 4180 quoting; blank lines skipped. Rows keep their order.
// Errors are DataError("manifest.csv:7", "column 'image' is empty"): the
// manifest path plus the line number, then the problem (missing column,
// empty cell, wrong field count, a listed file that does not exist or is
// neither NIfTI nor a DICOM folder, no rows at all).
std::vector<VolumeEntry> read_volume_manifest(const std::string& csv_path);

// [begin, end) of the items of `split` when `count` sorted items are split:
// the last round(count * val_fraction) items are held out for "val", with at
// least one in each split when count >= 2 and val_fraction > 0. With a single
// item, "train" gets it and "val" is empty.
std::pair<std::size_t, std::size_t> split_range(std::size_t count, double val_fraction, bool validation);

}  // namespace medsynth

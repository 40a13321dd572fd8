// Multi-contrast cases: one folder per case holding each contrast as its own
// file (BraTS), or the entries of a MONAI/MAISI datalist JSON. The contrast
// of a file is read from its name's suffix; BraTS 2023 (t1n, t1c, t2w, t2f)
// and BraTS 2021 (t1, t1ce, t2, flair) spell the same four contrasts
// differently, and a job naming one spelling reads data named with either.
// Called by volume_listing (a job reading one contrast per case) and by the
// translation task (several contrasts per case); no LibTorch, no ITK.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/image_conditioning.hpp"

namespace medsynth {

struct CaseEntry {
  std::string id;                                // the case folder's name ("BraTS-GLI-00000-000")
  std::string source;                            // where errors point: the case folder, or "list.json: training[3]"
  std::map<std::string, std::string> contrasts;  // contrast (as the files spell it) -> file
  std::string label;                             // the segmentation file ("" when none)
  // The stem every file of the case starts with, before "-t1n" or "_flair":
  // translated contrasts are named after it.
  std::string stem;
  // A datalist entry's own class and body regions (image_conditioning.hpp);
  // empty for case folders.
  ImageConditioning conditioning;
};

// The contrast a volume file of case `case_id` holds: what follows the case id
// and one of '-', '_', '.' in the file stem ("BraTS-GLI-00000-000-t1n" ->
// "t1n"), else what follows the stem's last '-' or '_'; lower case.
std::string contrast_of_file(const std::string& file_name, const std::string& case_id);

// Do the two names mean the same contrast (equal, or BraTS 2023 and 2021
// spellings of one contrast, any case)?
bool same_contrast(const std::string& a, const std::string& b);

// How a case that has `spelled_like` spells `contrast`: BraTS 2021 names when
// it uses those, else BraTS 2023 names; other names are kept.
std::string contrast_spelled_like(const std::string& contrast, const std::string& spelled_like);

// Does `folder` hold case folders (subfolders with volume files) rather than volumes?
bool holds_case_folders(const std::string& folder);

// The case folders of `folder`, sorted by name. A file whose contrast a case
// holds twice is an error naming both; label_contrast (e.g. "seg") names the
// segmentation's suffix. DataError(folder, ...) when there is no case folder.
std::vector<CaseEntry> list_case_folder(const std::string& folder, const std::string& label_contrast);

// The entries of a datalist JSON (MONAI's load_decathlon_datalist layout):
// {"<key>": [{"image": path | [paths], "label": path, "<contrast>": path}, ...]}.
// Paths are relative to `root` ("": the JSON's folder). An image list's files
// are keyed by their contrast suffix; keys other than image/label whose
// values are paths are contrasts of their own. The case id is the folder the
// images share (unless it is the root), else the first image's stem. Errors
// name the JSON and the entry: "list.json: training[3]: image 'x' does not exist".
// An entry's "modality", "top_region_index" and "bottom_region_index" (as
// NV-Generate's datalists hold them) are its conditioning.
std::vector<CaseEntry> read_datalist(const std::string& json_path, const std::string& key, const std::string& root);

// The file stem a generated `target` contrast of a case gets: `input_file`'s
// stem (a contrast of case `case_id`) with its contrast suffix replaced by
// the target, spelled as the input spells contrasts
// ("BraTS2021_00003_t1.nii.gz", "t2f" -> "BraTS2021_00003_flair").
std::string translated_file_stem(const std::string& input_file, const std::string& case_id, const std::string& target);

// The cases of a job's data (folder of case folders, or datalist), in order,
// cut to data.max_volumes.
std::vector<CaseEntry> list_job_cases(const DataSpec& data);

// The file of `contrast` in a case ("image" names a datalist entry's only
// image); DataError(case source, "case X has no t2f contrast (it has: ...)").
std::string case_contrast_file(const CaseEntry& c, const std::string& contrast);

}  // namespace medsynth

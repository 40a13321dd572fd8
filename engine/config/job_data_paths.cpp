#include "config/job_data_paths.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/job_enums.hpp"
#include "core/volume_file_names.hpp"

namespace medsynth {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// DICOM part 10: "DICM" after a 128-byte preamble; many exports also use .dcm.
bool is_dicom_file(const fs::path& p) {
  if (lower(p.extension().string()) == ".dcm") return true;
  std::ifstream in(p, std::ios::binary);
  char head[132] = {};
  if (!in.read(head, sizeof(head))) return false;
  return std::string(head + 128, 4) == "DICM";
}

// A bounded look: a folder of thousands of slices is recognised by its first files.
bool holds_dicom(const fs::path& dir) {
  constexpr int max_files_looked_at = 16;
  int looked = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (is_dicom_file(it->path())) return true;
    if (++looked >= max_files_looked_at) break;
  }
  return false;
}

bool holds_volumes(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> subdirs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && is_volume_file_name(it->path().filename().string())) return true;
    if (it->is_directory(ec)) subdirs.push_back(it->path());
  }
  // DICOM series folders, or case folders of volume files (BraTS: one folder per case).
  return std::any_of(subdirs.begin(), subdirs.end(), [](const fs::path& sub) {
    std::error_code ec;
    for (fs::directory_iterator it(sub, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && is_volume_file_name(it->path().filename().string())) return true;
    return holds_dicom(sub);
  });
}

std::string trim_cell(std::string cell) {
  // A UTF-8 byte-order mark, quotes and spaces are all common in exported CSVs.
  if (cell.rfind("\xEF\xBB\xBF", 0) == 0) cell.erase(0, 3);
  const auto first = cell.find_first_not_of(" \t\r\"'");
  if (first == std::string::npos) return "";
  const auto last = cell.find_last_not_of(" \t\r\"'");
  return cell.substr(first, last - first + 1);
}

void check_folder(const std::string& path, std::vector<FieldError>& errors) {
  std::error_code ec;
  const fs::path dir(path);
  if (!fs::exists(dir, ec)) return errors.push_back({"data.path", "no such directory: " + path});
  if (!fs::is_directory(dir, ec)) return errors.push_back({"data.path", "not a directory: " + path});
  if (!holds_volumes(dir))
    errors.push_back({"data.path", "no volume files (" + std::string(k_volume_file_extensions_text) + ") in " + path +
                                       " (nor DICOM subfolders, nor case folders of volume files)"});
}

void check_csv(const std::string& path, std::vector<FieldError>& errors) {
  std::error_code ec;
  const fs::path file(path);
  if (!fs::exists(file, ec)) return errors.push_back({"data.path", "no such file: " + path});
  if (!fs::is_regular_file(file, ec)) return errors.push_back({"data.path", "not a file: " + path});
  std::ifstream in(file);
  std::string header;
  if (!in || !std::getline(in, header)) return errors.push_back({"data.path", "cannot read the CSV manifest " + path});
  std::size_t start = 0;
  while (true) {
    const auto comma = header.find(',', start);
    if (trim_cell(header.substr(start, comma == std::string::npos ? std::string::npos : comma - start)) == "image")
      return;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  errors.push_back({"data.path", "the CSV manifest " + path + " has no \"image\" column in its header line"});
}

}  // namespace

void check_data_path(const DataSpec& data, std::vector<FieldError>& errors) {
  if (data.source == DataSource::simulated) return;  // path is ignored for phantoms
  const bool folder = data.source == DataSource::folder;
  if (data.path.empty()) {
    errors.push_back({"data.path", "required when data.source is " + std::string(to_string(data.source))});
    return;
  }
  std::error_code ec;
  if (folder)
    check_folder(data.path, errors);
  else if (data.source == DataSource::csv)
    check_csv(data.path, errors);
  else if (!fs::is_regular_file(data.path, ec))
    errors.push_back({"data.path", "no such datalist JSON file: " + data.path});
}

void check_resume_path(const CheckpointSpec& checkpoint, std::vector<FieldError>& errors) {
  if (checkpoint.resume.empty() || checkpoint.resume == "auto") return;
  std::error_code ec;
  if (!fs::is_regular_file(checkpoint.resume, ec))
    errors.push_back({"checkpoint.resume",
                      "no such checkpoint file: " + checkpoint.resume + " (use \"auto\" to resume from the run's last.pt)"});
}

}  // namespace medsynth

#include "data/volume_listing.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/volume_file_names.hpp"
#include "data/case_listing.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

bool has_dicom_preamble(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.seekg(128);
  in.read(magic, 4);
  return in.gcount() == 4 && std::string(magic, 4) == "DICM";
}

// One CSV record starting at `pos`; advances pos past it. Quoted fields may
// hold commas, doubled quotes and line breaks; `lines` counts the line breaks consumed.
std::vector<std::string> parse_record(const std::string& text, std::size_t& pos, int& lines, bool& bad_quote) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  bad_quote = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          fields.back() += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++lines;
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      ++lines;
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  bad_quote = quoted;
  return fields;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

bool is_volume_file_path(const std::string& path) { return is_volume_file_name(fs::path(path).filename().string()); }

std::string volume_id(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (name.empty()) name = fs::path(path).parent_path().filename().string();  // "folder/"
  return volume_file_stem(name);
}

bool is_dicom_folder(const std::string& path) {
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (has_dicom_preamble(it->path())) return true;
  }
  return false;
}

std::vector<VolumeEntry> list_volume_folder(const std::string& folder) {
  std::error_code ec;
  if (!fs::exists(folder, ec)) throw DataError(folder, "folder does not exist");
  if (!fs::is_directory(folder, ec)) throw DataError(folder, "not a folder (data.source is folder)");
  std::vector<VolumeEntry> entries;
  fs::directory_iterator it(folder, ec);
  if (ec) throw DataError(folder, "cannot list the folder: " + ec.message());
  for (fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) throw DataError(folder, "cannot list the folder: " + ec.message());
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (it->is_regular_file(ec) && is_volume_file_name(name)) {
      entries.push_back({it->path().string(), volume_id(name), false});
    } else if (it->is_directory(ec) && is_dicom_folder(it->path().string())) {
      entries.push_back({it->path().string(), name, true});
    }
  }
  if (entries.empty())
    throw DataError(folder, "no volumes (" + std::string(k_volume_file_extensions_text) + " files or DICOM series folders)");
  // Label maps paired with a listed image are the image's, not training volumes.
  std::set<std::string> labels;
  for (const auto& e : entries)
    if (auto label = paired_label_name(e.path)) labels.insert(*label);
  std::erase_if(entries, [&](const VolumeEntry& e) { return labels.count(e.path) > 0; });
  std::sort(entries.begin(), entries.end(), [](const VolumeEntry& a, const VolumeEntry& b) { return a.path < b.path; });
  std::map<std::string, std::string> by_id;
  for (const auto& e : entries) {
    auto [at, fresh] = by_id.emplace(e.id, e.path);
    if (!fresh)
      throw DataError(folder, fs::path(at->second).filename().string() + " and " + fs::path(e.path).filename().string() +
                                  " have the same name '" + e.id + "' (the same scan twice?); keep one of them");
  }
  return entries;
}

std::vector<VolumeEntry> read_volume_manifest(const std::string& csv_path) {
  std::ifstream in(csv_path, std::ios::binary);
  if (!in) throw DataError(csv_path, "cannot open the manifest");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path base = fs::path(csv_path).parent_path();
  auto where = [&](int line) { return csv_path + ":" + std::to_string(line); };

  std::size_t pos = 0;
  int line = 1;  // line where the next record starts
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;  // UTF-8 byte order mark
  std::vector<std::string> header;
  int header_line = 0;
  std::size_t image_column = 0;
  std::vector<VolumeEntry> entries;
  while (pos < text.size()) {
    const int record_line = line;
    int consumed = 0;
    bool bad_quote = false;
    std::vector<std::string> fields = parse_record(text, pos, consumed, bad_quote);
    line += consumed;
    if (bad_quote) throw DataError(where(record_line), "unterminated quote");
    if (fields.size() == 1 && trim(fields[0]).empty()) continue;  // blank line
    if (header.empty()) {
      header = fields;
      header_line = record_line;
      auto found = std::find_if(header.begin(), header.end(), [](const std::string& h) { return trim(h) == "image"; });
      if (found == header.end()) {
        std::string names;
        for (const auto& h : header) names += (names.empty() ? "" : ", ") + trim(h);
        throw DataError(where(record_line), "no column 'image' in the header (columns: " + names + ")");
      }
      image_column = std::size_t(found - header.begin());
      continue;
    }
    if (fields.size() != header.size()) {
      throw DataError(where(record_line), "has " + std::to_string(fields.size()) + " fields, the header on line " +
                                              std::to_string(header_line) + " has " + std::to_string(header.size()));
    }
    const std::string cell = trim(fields[image_column]);
    if (cell.empty()) throw DataError(where(record_line), "column 'image' is empty");
    fs::path path(cell);
    if (path.is_relative()) path = base / path;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw DataError(where(record_line), "image '" + cell + "' does not exist");
    if (fs::is_directory(path, ec)) {
      if (!is_dicom_folder(path.string())) throw DataError(where(record_line), "folder '" + cell + "' holds no DICOM files");
      entries.push_back({path.string(), volume_id(path.string()), true});
    } else if (is_volume_file_path(cell)) {
      entries.push_back({path.string(), volume_id(cell), false});
    } else {
      throw DataError(where(record_line), "image '" + cell + "' is neither a volume file (" +
                                              std::string(k_volume_file_extensions_text) + ") nor a DICOM folder");
    }
    entries.back().source = where(record_line);
    for (std::size_t c = 0; c < header.size(); ++c) entries.back().columns[trim(header[c])] = trim(fields[c]);
    entries.back().conditioning = read_image_conditioning(entries.back().columns, where(record_line));
  }
  if (header.empty()) throw DataError(csv_path, "empty manifest (expected a header row with a column 'image')");
  if (entries.empty()) throw DataError(csv_path, "no images listed");
  return entries;
}

namespace {

// One contrast per case (data.channels' only entry), or a datalist's single images.
std::vector<VolumeEntry> case_volumes(const DataSpec& data) {
  const auto cases = list_job_cases(data);
  if (data.channels.size() > 1)
    throw ConfigError({{"data.channels", "names " + std::to_string(data.channels.size()) +
                                             " contrasts; this task reads one image per case (task translation "
                                             "reads several)"}});
  std::string contrast = data.channels.empty() ? "" : data.channels.front();
  if (contrast.empty()) {
    const auto& first = cases.front();
    if (first.contrasts.size() == 1 && first.contrasts.count("image")) {
      contrast = "image";  // a datalist of single images (MAISI's)
    } else {
      std::string found;
      for (const auto& [name, file] : first.contrasts) found += (found.empty() ? "" : ", ") + name;
      throw DataError(data.path, "holds cases of several contrasts (" + first.id + ": " + found +
                                     "); name the one to read in data.channels, e.g. data.channels: [" +
                                     first.contrasts.begin()->first + "]");
    }
  }
  std::vector<VolumeEntry> entries;
  for (const auto& c : cases) {
    entries.push_back({case_contrast_file(c, contrast), c.id, false});
    entries.back().source = c.source;
    entries.back().conditioning = c.conditioning;
    entries.back().label = c.label;
  }
  return entries;
}

}  // namespace

std::vector<VolumeEntry> list_job_volumes(const DataSpec& data) {
  const bool cases =
      data.source == DataSource::datalist || (data.source == DataSource::folder && holds_case_folders(data.path));
  auto all = cases                               ? case_volumes(data)
             : data.source == DataSource::folder ? list_volume_folder(data.path)
                                                 : read_volume_manifest(data.path);
  // data.max_volumes cuts the list before the split: a quick run keeps a validation set.
  if (data.max_volumes > 0 && all.size() > static_cast<std::size_t>(data.max_volumes)) all.resize(data.max_volumes);
  return all;
}

std::pair<std::size_t, std::size_t> split_range(std::size_t count, double val_fraction, bool validation) {
  std::size_t held_out = static_cast<std::size_t>(std::llround(double(count) * std::clamp(val_fraction, 0.0, 1.0)));
  if (count >= 2 && val_fraction > 0.0) held_out = std::clamp<std::size_t>(held_out, 1, count - 1);
  if (count < 2) held_out = 0;
  const std::size_t train_end = count - held_out;
  return validation ? std::make_pair(train_end, count) : std::make_pair(std::size_t(0), train_end);
}

}  // namespace medsynth

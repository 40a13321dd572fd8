#include "data/case_listing.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "core/volume_file_names.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One contrast per row: {BraTS 2023, BraTS 2021} spelling.
constexpr std::array<std::array<std::string_view, 2>, 4> k_brats_spellings{{
    {"t1n", "t1"},
    {"t1c", "t1ce"},
    {"t2w", "t2"},
    {"t2f", "flair"},
}};

// The row of a spelling in k_brats_spellings and which column (2023: 0, 2021: 1).
std::optional<std::pair<std::size_t, std::size_t>> brats_spelling(const std::string& name) {
  const std::string n = lower(name);
  for (std::size_t r = 0; r < k_brats_spellings.size(); ++r)
    for (std::size_t c = 0; c < 2; ++c)
      if (n == k_brats_spellings[r][c]) return std::make_pair(r, c);
  return std::nullopt;
}

std::string contrast_list(const CaseEntry& c) {
  std::string text;
  for (const auto& [name, file] : c.contrasts) text += (text.empty() ? "" : ", ") + name;
  if (!c.label.empty()) text += (text.empty() ? "" : ", ") + std::string("label");
  return text.empty() ? "none" : text;
}

// The stem of a contrast file without its contrast suffix and separator.
std::string case_stem(const std::string& file_name, const std::string& contrast) {
  const std::string stem = volume_file_stem(file_name);
  if (stem.size() > contrast.size() + 1 && lower(stem.substr(stem.size() - contrast.size())) == contrast)
    return stem.substr(0, stem.size() - contrast.size() - 1);
  return stem;
}

// Adds `file` as contrast `contrast` of `c`; `where` names the case in errors.
void add_contrast(CaseEntry& c, const std::string& contrast, const std::string& file, const std::string& where) {
  for (const auto& [name, existing] : c.contrasts)
    if (same_contrast(name, contrast))
      throw DataError(where, fs::path(existing).filename().string() + " and " + fs::path(file).filename().string() +
                                 " are both contrast '" + contrast + "' of case " + c.id + "; keep one of them");
  c.contrasts[contrast] = file;
  if (c.stem.empty()) c.stem = case_stem(fs::path(file).filename().string(), contrast);
}

}  // namespace

std::string contrast_of_file(const std::string& file_name, const std::string& case_id) {
  const std::string stem = volume_file_stem(fs::path(file_name).filename().string());
  if (!case_id.empty() && stem.size() > case_id.size() + 1 && stem.compare(0, case_id.size(), case_id) == 0 &&
      std::string("-_.").find(stem[case_id.size()]) != std::string::npos)
    return lower(stem.substr(case_id.size() + 1));
  const auto cut = stem.find_last_of("-_");
  return lower(cut == std::string::npos ? stem : stem.substr(cut + 1));
}

bool same_contrast(const std::string& a, const std::string& b) {
  if (lower(a) == lower(b)) return true;
  const auto ra = brats_spelling(a), rb = brats_spelling(b);
  return ra && rb && ra->first == rb->first;
}

std::string contrast_spelled_like(const std::string& contrast, const std::string& spelled_like) {
  const auto row = brats_spelling(contrast);
  if (!row) return contrast;
  const auto other = brats_spelling(spelled_like);
  const std::size_t column = other ? other->second : 0;
  return std::string(k_brats_spellings[row->first][column]);
}

bool holds_case_folders(const std::string& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (it->is_regular_file(ec) && is_volume_file_name(name)) return false;  // a folder of volumes
  }
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->path().filename().string().starts_with(".")) continue;
    for (fs::directory_iterator f(it->path(), ec), fend; !ec && f != fend; f.increment(ec))
      if (f->is_regular_file(ec) && is_volume_file_name(f->path().filename().string())) return true;
  }
  return false;
}

std::vector<CaseEntry> list_case_folder(const std::string& folder, const std::string& label_contrast) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw DataError(folder, "not a folder");
  std::vector<CaseEntry> cases;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || !it->is_directory(ec)) continue;
    CaseEntry c;
    c.id = name;
    c.source = it->path().string();
    std::vector<fs::path> files;
    for (fs::directory_iterator f(it->path(), ec), fend; !ec && f != fend; f.increment(ec)) {
      const std::string file = f->path().filename().string();
      if (!file.starts_with(".") && f->is_regular_file(ec) && is_volume_file_name(file)) files.push_back(f->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      const std::string contrast = contrast_of_file(file.filename().string(), name);
      if (!label_contrast.empty() && same_contrast(contrast, label_contrast)) {
        if (!c.label.empty())
          throw DataError(c.source, "two label maps: " + fs::path(c.label).filename().string() + " and " +
                                        file.filename().string());
        c.label = file.string();
      } else {
        add_contrast(c, contrast, file.string(), c.source);
      }
    }
    if (!files.empty()) cases.push_back(std::move(c));
  }
  if (ec) throw DataError(folder, "cannot list the folder: " + ec.message());
  if (cases.empty()) throw DataError(folder, "no case folders (subfolders holding one case's volume files)");
  std::sort(cases.begin(), cases.end(), [](const CaseEntry& a, const CaseEntry& b) { return a.id < b.id; });
  return cases;
}

namespace {

// A path no file system has: a NUL cut it where the OS reads it (an entry
// "/etc/passwd\u0000..." was checked, and reported, as /etc/passwd), and a
// 10 MB path was printed twice over (issue 50 item 10).
void refuse_impossible_path(const std::string& text, const std::string& field, const std::string& where) {
  constexpr std::size_t k_shown = 120;
  std::string shown;
  for (const char ch : text.substr(0, k_shown)) shown += ch == '\0' ? std::string("\\0") : std::string(1, ch);
  if (text.size() > k_shown) shown += "... (" + std::to_string(text.size()) + " bytes)";
  if (text.find('\0') != std::string::npos)
    throw DataError(where, field + " '" + shown + "' holds a NUL byte, which no path can");
  if (text.size() > PATH_MAX)
    throw DataError(where, field + " '" + shown + "' is longer than any path (" + std::to_string(PATH_MAX) + " bytes)");
}

// The same image in two entries trained on one copy and validated on the
// other (the last entries are held out): a folder refuses the same scan
// twice, and so does a datalist, naming both entries.
void refuse_a_file_listed_twice(const CaseEntry& c, std::size_t index, const std::string& key, const std::string& where,
                                std::map<std::string, std::size_t>& first_listing) {
  std::vector<std::string> files;
  for (const auto& [name, file] : c.contrasts) files.push_back(file);
  if (!c.label.empty()) files.push_back(c.label);
  for (const auto& file : files) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(file, ec);
    const auto [at, fresh] = first_listing.emplace(ec ? file : canonical.string(), index);
    if (!fresh && at->second != index)
      throw DataError(where, "lists " + file + ", which " + key + "[" + std::to_string(at->second) +
                                 "] lists too (the same scan twice?); keep one of them");
  }
}

}  // namespace

std::vector<CaseEntry> read_datalist(const std::string& json_path, const std::string& key, const std::string& root) {
  const nlohmann::json doc = read_bounded_json_file(json_path, k_case_list_json_cap, "cannot open the datalist");
  if (!doc.is_object() || !doc.contains(key))
    throw DataError(json_path, "has no list '" + key + "' (data.datalist_key; MONAI datalists hold \"training\")");
  const nlohmann::json& list = doc.at(key);
  if (!list.is_array()) throw DataError(json_path, "'" + key + "' is not a list of entries");
  const fs::path base = root.empty() ? fs::path(json_path).parent_path() : fs::path(root);
  std::vector<CaseEntry> cases;
  std::set<std::string> ids;
  std::map<std::string, std::size_t> first_listing;  // image file -> the entry that lists it
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = json_path + ": " + key + "[" + std::to_string(i) + "]";
    const nlohmann::json& entry = list[i];
    if (!entry.is_object()) throw DataError(where, "is not an object with an \"image\"");
    const auto resolve = [&](const nlohmann::json& value, const std::string& field) {
      if (!value.is_string() || value.get<std::string>().empty())
        throw DataError(where, "'" + field + "' is neither a path nor a list of paths");
      const std::string text = value.get<std::string>();
      refuse_impossible_path(text, field, where);
      fs::path path(text);
      if (path.is_relative()) path = base / path;
      std::error_code ec;
      if (!fs::is_regular_file(path, ec))
        throw DataError(where, field + " '" + text + "' does not exist (under " + base.string() + ")");
      if (!is_volume_file_name(path.filename().string()))
        throw DataError(
            where, field + " '" + text + "' is not a volume file (" + std::string(k_volume_file_extensions_text) + ")");
      return path.lexically_normal().string();
    };
    CaseEntry c;
    c.source = where;
    std::vector<std::string> images;
    if (!entry.contains("image")) throw DataError(where, "has no \"image\"");
    const nlohmann::json& image = entry.at("image");
    if (image.is_array()) {
      for (const auto& one : image) images.push_back(resolve(one, "image"));
      if (images.empty()) throw DataError(where, "'image' is an empty list");
    } else {
      images.push_back(resolve(image, "image"));
    }
    // The case: the folder its images share, unless that is the datalist's root.
    const fs::path folder = fs::path(images.front()).parent_path();
    const bool shared = std::all_of(images.begin(), images.end(),
                                    [&](const std::string& p) { return fs::path(p).parent_path() == folder; });
    c.id = shared && folder != base.lexically_normal() && !folder.filename().empty()
               ? folder.filename().string()
               : volume_file_stem(fs::path(images.front()).filename().string());
    // The id names the case's output folder (generate writes OUTPUT/<id>/):
    // "..", "." or a separator would put it beside or above that (issue 50 item 9).
    if (c.id.empty() || c.id == "." || c.id == ".." || c.id.find_first_of("/\\") != std::string::npos)
      throw DataError(where, "gives the case id '" + c.id + "' (from '" + images.front() +
                                 "'), which is no folder name; rename the file or its folder");
    if (images.size() == 1 && !image.is_array()) {
      c.contrasts["image"] = images.front();
      c.stem = volume_file_stem(fs::path(images.front()).filename().string());
    } else {
      for (const auto& p : images) add_contrast(c, contrast_of_file(p, c.id), p, where);
    }
    for (const auto& [name, value] : entry.items()) {
      if (name == "image" || name == "label" || !value.is_string() || !is_volume_file_name(value.get<std::string>()))
        continue;
      add_contrast(c, lower(name), resolve(value, name), where);
    }
    if (entry.contains("label")) c.label = resolve(entry.at("label"), "label");
    c.conditioning = read_image_conditioning(entry, where);
    refuse_a_file_listed_twice(c, i, key, where, first_listing);
    if (!ids.insert(c.id).second) c.id += "-" + std::to_string(i);  // two entries of one folder: keep both, apart
    cases.push_back(std::move(c));
  }
  if (cases.empty()) throw DataError(json_path, "'" + key + "' lists no entries");
  return cases;
}

std::string translated_file_stem(const std::string& input_file, const std::string& case_id, const std::string& target) {
  const std::string name = fs::path(input_file).filename().string();
  const std::string contrast = contrast_of_file(name, case_id);
  const std::string stem = case_stem(name, contrast);
  const std::string full = volume_file_stem(name);
  const char separator = full.size() > stem.size() ? full[stem.size()] : '-';
  return stem + separator + contrast_spelled_like(target, contrast);
}

std::vector<CaseEntry> list_job_cases(const DataSpec& data) {
  std::vector<CaseEntry> cases;
  if (data.source == DataSource::datalist)
    cases = read_datalist(data.path, data.datalist_key, data.root);
  else if (data.source == DataSource::folder)
    cases = list_case_folder(data.path, data.label);
  else
    throw ConfigError({{"data.source",
                        "cases of several contrasts come from a folder of case folders or a datalist "
                        "(got " +
                            std::string(data.source == DataSource::csv ? "csv" : "simulated") + ")"}});
  if (data.max_volumes > 0 && cases.size() > static_cast<std::size_t>(data.max_volumes)) cases.resize(data.max_volumes);
  return cases;
}

std::string case_contrast_file(const CaseEntry& c, const std::string& contrast) {
  for (const auto& [name, file] : c.contrasts)
    if (same_contrast(name, contrast)) return file;
  throw DataError(c.source, "case " + c.id + " has no " + contrast + " contrast (it has: " + contrast_list(c) + ")");
}

}  // namespace medsynth

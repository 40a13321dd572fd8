#include "data/image_conditioning.hpp"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "config/maisi_models.hpp"
#include "core/error.hpp"

namespace medsynth {
namespace {

constexpr const char* k_region_rule = "must be 4 values, each 0 or 1 (one-hot head, chest, abdomen, lower body)";

std::string known_modalities() {
  return "NV-Generate's modality_mapping.json names: ct, ct_wo_contrast, ct_contrast, mri, mri_t1, mri_t2, "
         "mri_flair, ... (docs/maisi.md has the table)";
}

int modality_from_name(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const long code = std::strtol(text.c_str(), &end, 10);
  if (!text.empty() && end && *end == '\0') {  // a code number
    if (code < 0 || code > 1000 || maisi_modality_name(static_cast<int>(code)).empty())
      throw DataError(where, std::string(k_modality_key) + " " + text + " is no class of " + known_modalities());
    return static_cast<int>(code);
  }
  const int found = maisi_modality_code(text);
  if (found < 0)
    throw DataError(where, std::string(k_modality_key) + " \"" + text + "\" is not one of " + known_modalities());
  return found;
}

std::vector<double> checked_region(const std::vector<double>& values, const char* key, const std::string& shown,
                                   const std::string& where) {
  bool fine = values.size() == 4;
  for (double v : values) fine = fine && (v == 0.0 || v == 1.0);
  if (!fine) throw DataError(where, std::string(key) + " " + shown + " " + k_region_rule);
  return values;
}

std::vector<double> region_from_json(const nlohmann::json& value, const char* key, const std::string& where) {
  std::vector<double> values;
  if (value.is_array())
    for (const auto& v : value) values.push_back(v.is_number() ? v.get<double>() : NAN);
  return checked_region(values, key, value.dump(), where);
}

std::vector<double> region_from_cell(const std::string& cell, const char* key, const std::string& where) {
  std::string text = cell;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  std::vector<double> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    while (end && (*end == ' ' || *end == '\t')) ++end;
    values.push_back(end != part.c_str() && end && *end == '\0' ? v : NAN);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return checked_region(values, key, "'" + cell + "'", where);
}

}  // namespace

ImageConditioning read_image_conditioning(const nlohmann::json& object, const std::string& where) {
  ImageConditioning c;
  if (!object.is_object()) return c;
  if (const auto m = object.find(k_modality_key); m != object.end() && !m->is_null()) {
    if (m->is_string())
      c.modality = modality_from_name(m->get<std::string>(), where);
    else if (m->is_number_integer())
      c.modality = modality_from_name(std::to_string(m->get<long long>()), where);
    else
      throw DataError(where, std::string(k_modality_key) + " " + m->dump() + " is neither a name nor a class code of " +
                                 known_modalities());
  }
  if (const auto t = object.find(k_top_region_key); t != object.end() && !t->is_null())
    c.top_region_index = region_from_json(*t, k_top_region_key, where);
  if (const auto b = object.find(k_bottom_region_key); b != object.end() && !b->is_null())
    c.bottom_region_index = region_from_json(*b, k_bottom_region_key, where);
  return c;
}

ImageConditioning read_image_conditioning(const std::map<std::string, std::string>& columns, const std::string& where) {
  ImageConditioning c;
  const auto cell = [&](const char* key) {
    const auto it = columns.find(key);
    return it == columns.end() ? std::string() : it->second;
  };
  if (const std::string m = cell(k_modality_key); !m.empty()) c.modality = modality_from_name(m, where);
  if (const std::string t = cell(k_top_region_key); !t.empty())
    c.top_region_index = region_from_cell(t, k_top_region_key, where);
  if (const std::string b = cell(k_bottom_region_key); !b.empty())
    c.bottom_region_index = region_from_cell(b, k_bottom_region_key, where);
  return c;
}

void write_image_conditioning(const ImageConditioning& c, nlohmann::json& object) {
  if (c.modality >= 0) object[k_modality_key] = maisi_modality_name(c.modality);
  // Whole numbers, as NV-Generate writes them ([0, 1, 0, 0], not 1.0).
  const auto whole = [](const std::vector<double>& r) { return std::vector<int>(r.begin(), r.end()); };
  if (!c.top_region_index.empty()) object[k_top_region_key] = whole(c.top_region_index);
  if (!c.bottom_region_index.empty()) object[k_bottom_region_key] = whole(c.bottom_region_index);
}

}  // namespace medsynth

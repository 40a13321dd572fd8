#include "data/label_dicom_codes.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/label_tables.hpp"
#include "data/label_vocabulary.hpp"
#include "volume/label_palette.hpp"

namespace medsynth {

namespace {

using Json = nlohmann::json;

DicomCode code(const Json& triple) {
  return {triple.at(0).get<std::string>(), triple.at(1).get<std::string>(), triple.at(2).get<std::string>()};
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// "Middle lobe of right lung" names its side: it gets no laterality modifier.
bool contains_word(const std::string& text, const std::string& word) {
  return (" " + text + " ").find(" " + word + " ") != std::string::npos;
}

const Json& dicom_table() {
  static const Json table = Json::parse(label_tables::maisi_ct_dicom);  // built in: a parse error is our bug
  return table;
}

}  // namespace

std::vector<DicomSegment> maisi_ct_segments(const std::vector<int>& labels) {
  const Json& table = dicom_table();
  const auto& classes = maisi_ct_classes();
  const auto& types = table.at("types");
  const auto& altered = table.at("altered");
  const std::string scheme = table.at("private_scheme").get<std::string>();
  std::vector<DicomSegment> segments;
  for (const int label : labels) {
    DicomSegment s;
    s.label = label;
    s.colour = label_palette_colour(label_palette_slot(static_cast<float>(label)));
    const auto known = classes.find(label);
    if (known == classes.end()) {
      s.name = "label " + std::to_string(label);
      s.category = code(table.at("categories").at("anatomy"));
      s.type = {scheme, "LABEL-" + std::to_string(label), s.name};
      segments.push_back(std::move(s));
      continue;
    }
    s.name = known->second;
    const bool is_altered = std::find(altered.begin(), altered.end(), label) != altered.end();
    s.category = code(table.at("categories").at(is_altered ? "altered" : "anatomy"));
    const auto type = types.find(std::to_string(label));
    if (type == types.end()) {
      s.type = {scheme, "MAISI-" + std::to_string(label), s.name};
    } else {
      s.type = code(*type);
      const auto region = table.at("regions").find(std::to_string(label));
      if (region != table.at("regions").end()) s.region = code(*region);
      for (const char* side : {"left", "right"})
        if (starts_with(s.name, std::string(side) + " ") && !contains_word(s.type.meaning, side))
          (s.region ? s.region_modifier : s.modifier) = code(table.at("laterality").at(side));
    }
    segments.push_back(std::move(s));
  }
  return segments;
}

DicomCodingScheme maisi_ct_private_coding_scheme() {
  const Json& table = dicom_table();
  return {table.at("private_scheme").get<std::string>(), table.at("private_scheme_name").get<std::string>(),
          table.at("private_scheme_organization").get<std::string>()};
}

}  // namespace medsynth

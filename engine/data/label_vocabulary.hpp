// Label vocabularies and the maps between them (issue 39): MAISI CT's classes,
// which its ControlNet steers by (label 200: the body envelope), and the
// tables that take TotalSegmentator's and VISTA3D's outputs to them. The
// tables are resources/labels/*.json, compiled in (label_tables.hpp.in).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace medsynth {

inline constexpr int k_maisi_body_label = 200;

// MAISI CT's class names by id (its dummy ids absent).
const std::map<int, std::string>& maisi_ct_classes();

// The organ groups NV-Generate's quality check judges, each with its MAISI CT
// classes ("kidney": 5 and 14, "bone": vertebrae, ribs, long bones, skull ...).
const std::map<std::string, std::vector<int>>& maisi_ct_organ_groups();

struct LabelMapping {
  std::string source;  // what the table maps from ("TotalSegmentator v2, ...", or the user's file)
  struct Entry {
    std::string name;  // the source class's name ("" in a user's map that gives none)
    int maisi = 0;     // its MAISI CT id; 0: MAISI CT has no such class (its voxels are dropped)
  };
  std::map<int, Entry> labels;
};

// "totalsegmentator", "vista3d", or a JSON file of the user's:
// {"<source id>": <MAISI id or 0> | "<MAISI class name>", ...}. DataError
// naming the file and the entry for an id or name MAISI CT does not have.
LabelMapping label_mapping(const std::string& from);

}  // namespace medsynth

// The field rows (config/job_fields.hpp) against everything else that lists
// job fields: the schema the reader, writers and overrides walk, the
// validation that enforces the rows' ranges (or, for the scheduler and the
// diffusion UNet, their options' own checks), and docs/job-file.md.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "config/job_fields.hpp"
#include "config/job_loader.hpp"
#include "config/job_schema.hpp"

namespace medsynth {
namespace {

std::vector<std::string> row_paths() {
  std::vector<std::string> out;
  for (const auto& row : job_field_rows()) out.push_back(row.path);
  return out;
}

TEST(JobFields, OneRowPerSchemaFieldInFileOrder) {
  // A field the reader knows without a row, or a row no reader fills, shows
  // here by name.
  EXPECT_EQ(row_paths(), job_field_paths());
}

TEST(JobFields, EveryRowIsPresentable) {
  const auto& groups = job_field_groups();
  for (const auto& row : job_field_rows()) {
    EXPECT_FALSE(row.label.empty()) << row.path;
    EXPECT_FALSE(row.help.empty()) << row.path;
    EXPECT_NE(std::find(groups.begin(), groups.end(), row.group), groups.end()) << row.path << ": " << row.group;
    if (row.range.min && row.range.max) EXPECT_LT(*row.range.min, *row.range.max) << row.path;
  }
  EXPECT_EQ(find_job_field_row("training.lr")->label, "Learning rate");
  EXPECT_EQ(find_job_field_row("training.nope"), nullptr);
}

// Sets the field at `path` of a job to a number: a number field itself, the
// first entry of a list of numbers.
class SetNumber {
 public:
  SetNumber(std::string path, double value) : path_(std::move(path)), value_(value) {}
  bool found() const { return found_; }
  bool integral() const { return integral_; }

  template <class T>
  void operator()(const std::string& path, T& value) {
    if (path == path_) found_ = set(value);
  }

 private:
  template <class T>
  bool set(T& v) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      v = static_cast<T>(value_);
      integral_ = std::is_integral_v<T>;
      return true;
    }
    return false;
  }
  template <class T, std::size_t N>
  bool set(std::array<T, N>& v) {
    return set(v[0]);
  }
  template <class T>
  bool set(std::vector<T>& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return false;
    } else {
      if (v.empty()) v.emplace_back();
      return set(v[0]);
    }
  }
  template <class T, std::size_t N>
  bool set(std::optional<std::array<T, N>>& v) {
    if (!v) v.emplace();
    v->fill(T{1});
    return set((*v)[0]);
  }

  std::string path_;
  double value_;
  bool found_ = false;
  bool integral_ = false;
};

// Every number (or list entry) just outside a row's range is refused with an
// error that names the field: the rows say what the engine enforces.
TEST(JobFields, ValuesOutsideARowsRangeAreRefused) {
  int checked = 0;
  for (const auto& row : job_field_rows()) {
    const auto& r = row.range;
    std::vector<double> outside;
    // Numbers step out by the smallest step a double has, integers by one.
    if (r.min) outside.push_back(r.min_exclusive ? *r.min : std::nextafter(*r.min, -HUGE_VAL));
    if (r.max) outside.push_back(r.max_exclusive ? *r.max : std::nextafter(*r.max, HUGE_VAL));
    if (r.min && !r.min_exclusive) outside.push_back(*r.min - 1);
    if (r.max && !r.max_exclusive) outside.push_back(*r.max + 1);
    for (double value : outside) {
      JobSpec job;
      SetNumber setter(row.path, value);
      for_each_job_field(job, setter);
      ASSERT_TRUE(setter.found()) << row.path << " has a range but holds no number";
      if (setter.integral() && std::trunc(value) != value) continue;  // the step for numbers, not for integers
      const auto errors = validate_job(job);
      bool named = false;
      for (const auto& e : errors) named = named || e.path.starts_with(row.path);
      EXPECT_TRUE(named) << row.path << " = " << value << " was accepted; its row says " << r.requirement(row.unit)
                         << "\n"
                         << format_errors(errors);
      ++checked;
    }
  }
  EXPECT_GT(checked, 80);
}

// The fields docs/job-file.md documents: "### `section`" headings, then one
// table row per field whose first cell names it (`beta_start`, `beta_end`).
std::set<std::string> documented_paths() {
  std::ifstream in(std::string(MEDSYNTH_SOURCE_DIR) + "/docs/job-file.md");
  EXPECT_TRUE(in) << "docs/job-file.md";
  std::set<std::string> out;
  std::string line, prefix;
  bool in_fields = false;
  const std::regex heading(R"(^### (?:`([a-z_.]+)`|Top level))");
  const std::regex name("`([a-z_0-9]+)`");
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) in_fields = line == "## Fields";
    if (!in_fields) continue;
    std::smatch m;
    if (std::regex_search(line, m, heading)) {
      prefix = m[1].matched ? m[1].str() + "." : "";
      continue;
    }
    if (!line.starts_with("| `")) continue;
    const std::string first_cell = line.substr(1, line.find('|', 1) - 1);
    for (auto it = std::sregex_iterator(first_cell.begin(), first_cell.end(), name); it != std::sregex_iterator(); ++it)
      out.insert(prefix + (*it)[1].str());
  }
  return out;
}

TEST(JobFields, TheJobFileDocumentsEveryRow) {
  const auto documented = documented_paths();
  for (const auto& path : row_paths())
    EXPECT_TRUE(documented.count(path)) << path << " has no line in docs/job-file.md";
  const auto rows = row_paths();
  for (const auto& path : documented)
    EXPECT_NE(std::find(rows.begin(), rows.end(), path), rows.end())
        << "docs/job-file.md documents " << path << ", no job field";
}

}  // namespace
}  // namespace medsynth

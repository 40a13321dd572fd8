#include "config/job_field_checks.hpp"

#include <array>
#include <optional>
#include <string>
#include <type_traits>

#include "config/job_fields.hpp"
#include "config/job_schema.hpp"
#include "config/validation_checks.hpp"

namespace medsynth {

namespace {

// These sections are options structs that validate themselves, because the
// engine also builds them in code and from MAISI's network configs:
// model.autoencoder from these rows (check_autoencoder_rows), the scheduler
// and the diffusion UNet in config/diffusion_spec.cpp, whose rows document
// the same ranges (tests/engine/config/job_fields_test.cpp holds them together).
bool checked_by_its_options(const std::string& path) {
  return path.starts_with("model.autoencoder.") || path.starts_with("scheduler.") ||
         path.starts_with("model.diffusion_unet.") || path.starts_with("model.resnet.") ||
         path == "model.discriminator.num_layers_d" || path == "model.discriminator.channels" ||
         (path.starts_with("model.vqgan.") && path != "model.vqgan.discriminator_iter_start" &&
          path != "model.vqgan.image_gan_weight" && path != "model.vqgan.video_gan_weight" &&
          path != "model.vqgan.gan_feat_weight");
}

template <class T>
constexpr bool is_number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

class RowChecker {
 public:
  RowChecker(std::vector<FieldError>& errors, bool whole_job) : checks_(errors), whole_job_(whole_job) {}

  template <class T>
  void operator()(const std::string& path, const T& value) {
    const JobFieldRow* row = find_job_field_row(path);
    if (!row) return;  // a field without a row fails job_fields_test
    if (whole_job_ && checked_by_its_options(path)) return;
    check(path, *row, value);
  }

 private:
  template <class T>
  void check(const std::string& path, const JobFieldRow& row, const T& value) {
    if constexpr (is_number<T>) {
      if (!row.range.empty() && !row.range.contains(static_cast<double>(value)))
        checks_.fail(path, row.range.requirement(row.unit) + " (got " + value_text(value) + ")");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!row.choices.empty()) checks_.one_of(path, value, row.choices);
    }
  }
  template <class T, std::size_t N>
  void check(const std::string& path, const JobFieldRow& row, const std::array<T, N>& values) {
    check_entries(path, row, values);
  }
  template <class T>
  void check(const std::string& path, const JobFieldRow& row, const std::vector<T>& values) {
    check_entries(path, row, values);
  }
  template <class T, std::size_t N>
  void check(const std::string& path, const JobFieldRow& row, const std::optional<std::array<T, N>>& values) {
    if (values) check_entries(path, row, *values);
  }

  template <class List>
  void check_entries(const std::string& path, const JobFieldRow& row, const List& values) {
    using T = typename List::value_type;
    if constexpr (is_number<T>) {
      if (row.range.empty()) return;
      for (const auto& v : values) {
        if (row.range.contains(static_cast<double>(v))) continue;
        checks_.fail(path, "every entry " + row.range.requirement(row.unit) + " (got " + list_text(values) + ")");
        return;
      }
    }
  }

  Checks checks_;
  bool whole_job_;
};

}  // namespace

void check_field_rows(const JobSpec& job, std::vector<FieldError>& errors) {
  for_each_job_field(job, RowChecker(errors, true));
}

namespace {

// One options struct's fields, under the job path where the struct sits.
template <class Options, class Visit>
void check_rows(const Options& options, const char* prefix, Visit visit, std::vector<FieldError>& errors) {
  RowChecker checker(errors, false);
  JobFieldWalker<RowChecker> walker(checker, prefix);
  visit(options, walker);
}

}  // namespace

void check_autoencoder_rows(const AutoencoderKLOptions& autoencoder, std::vector<FieldError>& errors) {
  check_rows(autoencoder, "model.autoencoder.", [](const auto& o, auto& w) { visit_autoencoder(o, w); }, errors);
}

void check_discriminator_rows(const PatchDiscriminatorOptions& discriminator, std::vector<FieldError>& errors) {
  check_rows(discriminator, "model.discriminator.", [](const auto& o, auto& w) { visit_discriminator_network(o, w); }, errors);
}

void check_vector_quantizer_rows(const VectorQuantizerOptions& quantizer, std::vector<FieldError>& errors) {
  check_rows(quantizer, "model.vqgan.", [](const auto& o, auto& w) { visit_vector_quantizer(o, w); }, errors);
}

void check_resnet_rows(const ResNet3dOptions& resnet, std::vector<FieldError>& errors) {
  check_rows(resnet, "model.resnet.", [](const auto& o, auto& w) { visit_resnet(o, w); }, errors);
}

}  // namespace medsynth

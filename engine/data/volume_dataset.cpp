#include "data/volume_dataset.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>

#include "config/job_enums.hpp"
#include "core/error.hpp"
#include "data/counter_rng.hpp"
#include "data/ct_phantom.hpp"
#include "data/preprocess.hpp"
#include "data/volume_listing.hpp"
#include "volume/volume_file_check.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

constexpr std::uint64_t k_phantom_stream = 0x7068616E746F6Dull;  // "phantom"

PhantomOptions phantom_options(const DataSpec& spec) {
  return {spec.phantom_size, spec.phantom_spacing, spec.noise_hu};
}

// The fields this dataset depends on; the job validator checks more.
void check_spec(const DataSpec& spec) {
  std::vector<FieldError> errors;
  if (!(spec.cache_rate >= 0.0 && spec.cache_rate <= 1.0))
    errors.push_back({"data.cache_rate", "must be in [0, 1] (got " + std::to_string(spec.cache_rate) + ")"});
  if (!(spec.val_fraction >= 0.0 && spec.val_fraction < 1.0))
    errors.push_back({"data.val_fraction", "must be in [0, 1) (got " + std::to_string(spec.val_fraction) + ")"});
  if (spec.source == DataSource::simulated) {
    if (spec.num_train < 0) errors.push_back({"data.num_train", "must be >= 0 (got " + std::to_string(spec.num_train) + ")"});
    if (spec.num_val < 0) errors.push_back({"data.num_val", "must be >= 0 (got " + std::to_string(spec.num_val) + ")"});
  } else if (spec.path.empty()) {
    errors.push_back({"data.path", spec.source == DataSource::folder ? "a folder is required when data.source is folder"
                                   : spec.source == DataSource::csv
                                       ? "a CSV manifest is required when data.source is csv"
                                       : "a datalist JSON is required when data.source is datalist"});
  }
  if (!(spec.ct_window[0] < spec.ct_window[1]))
    errors.push_back({"data.ct_window", "must be [lo, hi] with lo < hi"});
  if (!(spec.mri_percentiles[0] >= 0.0 && spec.mri_percentiles[0] < spec.mri_percentiles[1] &&
        spec.mri_percentiles[1] <= 100.0))
    errors.push_back({"data.mri_percentiles", "must be [lo, hi] with 0 <= lo < hi <= 100"});
  if (spec.target_spacing) {
    for (double s : *spec.target_spacing) {
      if (!(s > 0.0) || !std::isfinite(s)) errors.push_back({"data.target_spacing", "every spacing must be finite and > 0"});
    }
  }
  if (!errors.empty()) throw ConfigError(std::move(errors), "data");
}

// The per-thread home of uncached volumes handed out by get() (see the header).
thread_local std::shared_ptr<const Volume> t_uncached_volume;

}  // namespace

std::uint64_t phantom_seed_for(std::uint64_t base_seed, bool validation, std::size_t index) {
  // mix64 is a bijection, and 2 * index + split differs for every pair.
  return mix64(hash_keys({base_seed, k_phantom_stream}) + 2 * std::uint64_t(index) + (validation ? 1 : 0));
}

VolumeDataset::VolumeDataset(const DataSpec& spec, const std::string& split, std::uint64_t base_seed, Reader reader)
    : spec_(spec), split_(split), reader_(std::move(reader)) {
  if (split != "train" && split != "val" && split != "all") {
    throw UsageError("dataset split must be 'train', 'val' or 'all' (got '" + split + "')");
  }
  check_spec(spec);
  const bool all_items = split == "all";
  if (!reader_) reader_ = [](const std::string& path) { return read_volume(path); };

  if (spec.source == DataSource::simulated) {
    for (const bool validation : {false, true}) {
      if (!all_items && validation != (split == "val")) continue;
      const int count = validation ? spec.num_val : spec.num_train;
      for (int i = 0; i < count; ++i) {
        const std::uint64_t seed = phantom_seed_for(base_seed, validation, std::size_t(i));
        items_.push_back({"phantom-" + std::to_string(seed), "", seed, std::nullopt, {}, {}});
      }
    }
    validate_phantom_options(phantom_options(spec));
  } else {
    const std::vector<VolumeEntry> all = list_job_volumes(spec);
    auto [begin, end] = split_range(all.size(), spec.val_fraction, split == "val");
    if (all_items) {
      begin = 0;
      end = all.size();
    }
    for (std::size_t i = begin; i < end; ++i) {
      // The cheap header + length check of every file, before any training step.
      std::optional<HeaderGrid> grid;
      if (!all[i].dicom_series) grid = check_volume_file(all[i].path, VolumeReadOptions{});
      items_.push_back({all[i].id, all[i].path, 0, grid, all[i].conditioning, all[i].label});
    }
  }
  cache_ = std::make_unique<VolumeCache>(items_.size(), spec.cache_rate, [this](std::size_t i) { return load(i); });
}

VolumeDataset::~VolumeDataset() = default;

const std::string& VolumeDataset::id(std::size_t i) const { return items_.at(i).id; }
const std::string& VolumeDataset::path(std::size_t i) const { return items_.at(i).path; }
std::uint64_t VolumeDataset::phantom_seed(std::size_t i) const { return items_.at(i).seed; }
const std::optional<HeaderGrid>& VolumeDataset::header_grid(std::size_t i) const { return items_.at(i).header_grid; }
const ImageConditioning& VolumeDataset::conditioning(std::size_t i) const { return items_.at(i).conditioning; }
const std::string& VolumeDataset::label_path(std::size_t i) const { return items_.at(i).label; }

Volume VolumeDataset::load(std::size_t i) const {
  const Item& item = items_.at(i);
  if (spec_.source == DataSource::simulated) {
    return preprocess_volume(make_ct_phantom(item.seed, phantom_options(spec_)), spec_, item.id);
  }
  return preprocess_volume(reader_(item.path), spec_, item.path);
}

std::shared_ptr<const Volume> VolumeDataset::share(std::size_t i) const {
  if (i >= items_.size()) {
    throw RuntimeError("VolumeDataset(" + split_ + "): item " + std::to_string(i) + " of " + std::to_string(items_.size()));
  }
  return cache_->get(i);
}

const Volume& VolumeDataset::get(std::size_t i) const {
  std::shared_ptr<const Volume> volume = share(i);
  if (cache_->is_cached(i)) return *volume;  // the cache keeps it alive
  t_uncached_volume = std::move(volume);
  return *t_uncached_volume;
}

void VolumeDataset::warm_cache(int num_workers) const { cache_->fill(num_workers); }

void apply_data_override(DataSpec& spec, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const DataSource by_name = data_source_for_path(path);
  if (fs::is_directory(path, ec)) {
    spec.source = DataSource::folder;
  } else if (fs::is_regular_file(path, ec) && by_name != DataSource::folder) {
    spec.source = by_name;
  } else if (!fs::exists(path, ec)) {
    throw DataError(path, "--data: no such folder or file");
  } else {
    throw DataError(
        path,
        "--data expects a folder of volumes (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd or DICOM series) or of "
        "case folders, a .csv manifest or a .json datalist");
  }
  spec.path = path;
}

}  // namespace medsynth

// The training or validation volumes of a job, preprocessed (resampled,
// normalised to [0, 1]) and cached as data.cache_rate asks. Built by the
// trainer from the job's DataSpec, one per split; read by the batch loader
// (training patches) and by tasks' validation (whole volumes).
//
// Sources (DataSpec::source):
//  - simulated: CT phantoms (ct_phantom.hpp), num_train / num_val of them,
//    seeds derived from (base_seed, split, index) so that a val phantom is
//    never a train phantom;
//  - folder: the sorted volume files (.nii, .nii.gz, .nrrd, .nhdr, .mha,
//    .mhd) and DICOM series folders of data.path (list_volume_folder), the
//    last val_fraction held out for "val";
//  - csv: the rows of a manifest with a column `image`, same split.
// On construction every file of the split goes through check_volume_file
// (the NIfTI header guard, or the NRRD/MetaImage header checks), so a
// truncated or corrupt file fails before training starts, with a DataError
// naming it.
//
// Threading: size(), id(), share(), load() and get() may be called from any
// thread (the cache is thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/image_conditioning.hpp"
#include "data/volume_cache.hpp"
#include "volume/header_grid.hpp"
#include "volume/volume.hpp"

namespace medsynth {

class VolumeDataset {
 public:
  // Reads one file or DICOM folder into a raw volume; default: read_volume().
  // Tests pass a counting or failing reader.
  using Reader = std::function<Volume(const std::string& path)>;

  // split is "train", "val" or "all" (every volume, no hold-out: `eval --data`;
  // simulated: the train phantoms, then the val ones). UsageError otherwise.
  // Throws ConfigError for
  // unusable DataSpec fields (paths data.*) and DataError for missing/empty
  // folders, manifest errors and files the header guard refuses.
  VolumeDataset(const DataSpec& spec, const std::string& split, std::uint64_t base_seed, Reader reader = {});
  ~VolumeDataset();
  VolumeDataset(const VolumeDataset&) = delete;
  VolumeDataset& operator=(const VolumeDataset&) = delete;

  std::size_t size() const { return items_.size(); }
  const std::string& split() const { return split_; }
  const DataSpec& spec() const { return spec_; }

  // "case_001" for case_001.nii.gz, the folder name of a DICOM series, or
  // "phantom-<seed>" for a simulated volume.
  const std::string& id(std::size_t i) const;
  // The file or DICOM folder of item i ("" for phantoms).
  const std::string& path(std::size_t i) const;
  // The phantom seed of item i (simulated source only, else 0).
  std::uint64_t phantom_seed(std::size_t i) const;
  // The grid item i's file header states, before preprocessing (nullopt for
  // phantoms and DICOM series, whose grid is known only once read).
  const std::optional<HeaderGrid>& header_grid(std::size_t i) const;
  // Item i's own class and body regions (its datalist entry's or manifest
  // row's); empty for phantoms and folders.
  const ImageConditioning& conditioning(std::size_t i) const;
  // The label map its case lists (a datalist's "label", a case folder's
  // data.label contrast); "" when none is listed.
  const std::string& label_path(std::size_t i) const;

  // The preprocessed volume of item i. For a cached item the reference lives
  // as long as the dataset. An uncached item is loaded again at each call and
  // kept in a per-thread slot: the reference stays valid until this thread's
  // next get() of an uncached item (of any dataset). Hold a share() when that
  // is not enough.
  const Volume& get(std::size_t i) const;
  // The same volume as an owning handle (the batch loader uses this).
  std::shared_ptr<const Volume> share(std::size_t i) const;
  // Reads and preprocesses item i, bypassing the cache.
  Volume load(std::size_t i) const;

  // Loads every cached item now with num_workers threads (MONAI CacheDataset
  // fills at construction; we let the caller choose when).
  void warm_cache(int num_workers) const;
  const VolumeCache& cache() const { return *cache_; }

 private:
  struct Item {
    std::string id;
    std::string path;
    std::uint64_t seed = 0;
    std::optional<HeaderGrid> header_grid;
    ImageConditioning conditioning;
    std::string label;
  };
  DataSpec spec_;
  std::string split_;
  Reader reader_;
  std::vector<Item> items_;
  std::unique_ptr<VolumeCache> cache_;
};

// The seed of phantom `index` of a split. Distinct for every (index, split)
// under one base seed: a bijective mix of a counter that differs between them.
std::uint64_t phantom_seed_for(std::uint64_t base_seed, bool validation, std::size_t index);

// `--data PATH`: a folder (of volumes or of case folders), a .csv manifest or a
// .json datalist replaces the job's
// data source (source and path only; everything else stays). Throws DataError
// naming the path when it is neither.
void apply_data_override(DataSpec& spec, const std::string& path);

}  // namespace medsynth

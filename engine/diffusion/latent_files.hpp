// The embedding folder of an LDM run, as MAISI lays it out: one file per
// image with its latent, plus a .json of its metadata beside it
// (<id>_emb.safetensors + <id>_emb.json); the latents' scale is the run's
// (RunDirectory::scale_factor_file), not the folder's. Latents are stored as float32 safetensors [C, Z, Y, X]
// (MAISI writes a 4D NIfTI; a tensor file keeps all channels exact and
// reads by name, docs/latent-diffusion.md; ldm.embedding_layout: maisi adds
// that NIfTI, maisi_embedding_files.hpp). Written by the encode stage,
// read by the LDM task and by generate (the scale factor).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <string>
#include <vector>

#include "contract/run_directory.hpp"

namespace medsynth {

struct JobSpec;
struct ImageConditioning;

struct LatentRecord {
  std::string id;                       // the image's dataset id
  std::string split;                    // "train" | "val"
  std::array<double, 3> image_spacing{1, 1, 1};  // mm, of the encoded image
  std::array<std::int64_t, 3> image_size{0, 0, 0};  // voxels x, y, z
  std::string stored = "mean";          // "mean" | "sample" of q(z|x)
  at::Tensor latent;                    // [C, Z, Y, X] float32, CPU (unscaled); [C, X, Y, Z] for xyz networks
  at::Tensor condition;                 // task controlnet: the label map [1, image axes], undefined otherwise
  std::string file;                     // what it was read from (for messages); "" when built in memory
  // One-hot body regions of the image's top and bottom slices (4 values,
  // MAISI ddpm-ct), when its metadata says; empty: the job's generate.*_region_index.
  std::vector<double> top_region_index, bottom_region_index;
  // The UNet's class label for this image, when its metadata names one
  // (NV-Generate's "modality", e.g. "mri_t2" -> 10); -1: generate.modality.
  int modality = -1;
};

// What every latent of a folder must be, checked on each file as soon as it
// is read, so that a folder of wrong latents is refused at its first bad file
// and not after all of them are in memory (issue 50 item 8: seven 1.1 MB
// files took 14 s and 2 GB before the channel error).
struct LatentRequirements {
  std::int64_t channels = 0;   // 0: any
  std::string channels_field;  // the job field that sets `channels`, for the message
  int num_class_embeds = 0;    // > 0: a latent's modality class (when it names one) must be below it
};

// What the job's diffusion UNet takes: the first stage's latent channels and
// the UNet's class count. The encode stage (reading a folder for its scale
// factor) and the LDM task read every folder with it.
LatentRequirements latent_requirements(const JobSpec& job);

// DataError naming the file (its .json for the modality) when `record` is not
// what `required` asks for.
void check_latent(const LatentRecord& record, const LatentRequirements& required);

std::string latent_path(const std::string& dir, const std::string& id);

// A record's class and body regions as one value (data/image_conditioning.hpp),
// and back: the latent JSONs and NV-Generate's carry them under the same keys.
ImageConditioning conditioning_of(const LatentRecord& record);
void set_conditioning(LatentRecord& record, const ImageConditioning& conditioning);
// Does the latent JSON of `id` in `dir` record `wanted`? The encode stage
// encodes an image again when its datalist entry's conditioning changed
// since its latent was written; false also when the JSON cannot be read.
bool latent_conditioning_is(const std::string& dir, const std::string& id, const ImageConditioning& wanted);

// Writes the latent and its .json atomically.
void write_latent(const std::string& dir, const LatentRecord& record);
// Reads every <id>_emb.safetensors of `dir` whose .json says `split` ("" = all),
// sorted by id. A folder with none of those but NV-Generate's *_emb.nii.gz is
// read in that layout instead (maisi_embedding_files.hpp). Each latent is
// checked against `required` before the next file is read. DataError naming
// the file for a malformed pair or a latent `required` refuses; DataError
// when the folder holds none.
std::vector<LatentRecord> read_latents(const std::string& dir, const std::string& split,
                                       const LatentRequirements& required = {});

// The latent scale file (scale_factor.json: scale_factor, latent_std).
// Both refuse a scale outside [k_min_scale_factor, k_max_scale_factor]
// (MAISI's are near 1; 1e300 or 0 only ever end in "training diverged"):
// the writer with RuntimeError naming the file and the latent std it came
// from, the reader with DataError naming the file and the value; the reader
// also when the file is missing or malformed.
inline constexpr double k_min_scale_factor = 1e-6, k_max_scale_factor = 1e6;
void write_scale_factor(const std::string& file, double scale_factor, double latent_std);
double read_scale_factor(const std::string& file);
// The scale file of a finished run for generate and export-maisi: the run's,
// or for a run made before it was kept there, the one its ldm.embedding_dir holds.
std::string scale_factor_file_of(const RunDirectory& run, const std::string& embedding_dir);

// Task controlnet: the preprocessed label map of image `id` beside its
// latent (<id>_label.safetensors, tensor "label" [1, image axes in the
// networks' order], float32 class values at image resolution).
std::string label_path(const std::string& dir, const std::string& id);
void write_label(const std::string& dir, const std::string& id, const at::Tensor& label);
// DataError naming the file when it is missing or holds no 4-D "label".
at::Tensor read_label(const std::string& dir, const std::string& id);

}  // namespace medsynth

#include "diffusion/maisi_embedding_files.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "data/image_conditioning.hpp"
#include "diffusion/maisi_embedding_metadata.hpp"
#include "volume/atomic_file.hpp"
#include "volume/channel_volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

constexpr const char* suffix = "_emb.nii.gz";

bool ends_with(const std::string& s, const std::string& end) {
  return s.size() > end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// Hidden names are temp files of an atomic write (".<id>_emb.tmp-XXXXXX.nii.gz").
bool is_embedding_name(const std::string& name, const std::string& end) {
  return name[0] != '.' && ends_with(name, end);
}

std::vector<fs::path> files_under(const std::string& dir, const std::string& end) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), last;
       !ec && it != last; it.increment(ec)) {
    if (!is_embedding_name(it->path().filename().string(), end)) continue;
    // A symbolic link loop or a dangling link under an embedding's name:
    // refused naming it, where is_regular_file() would throw a raw error.
    std::error_code type_ec;
    const bool regular = it->is_regular_file(type_ec);
    if (type_ec) throw DataError(it->path().string(), "cannot follow it: " + type_ec.message());
    if (regular) files.push_back(it->path());
  }
  if (ec) throw DataError(dir, "cannot list the folder: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string maisi_embedding_path(const std::string& dir, const std::string& id) { return dir + "/" + id + suffix; }

std::string maisi_embedding_json_path(const std::string& dir, const std::string& id) {
  return maisi_embedding_path(dir, id) + ".json";
}

bool maisi_embedding_exists(const std::string& dir, const std::string& id) {
  return fs::exists(maisi_embedding_path(dir, id)) && fs::exists(maisi_embedding_json_path(dir, id));
}

void write_maisi_embedding(const std::string& dir, const LatentRecord& r, const MaisiEmbeddingInfo& info) {
  const std::string path = maisi_embedding_path(dir, r.id);
  fs::create_directories(fs::path(path).parent_path());
  // "dim" is the encoded image's voxels (NV-Generate's data README: the
  // resampled volume's dimensions; its training does not read it). "split"
  // and "stored" are medsynth's: NV-Generate reads its keys by name.
  nlohmann::json meta{{"spacing", r.image_spacing}, {"dim", r.image_size}, {"split", r.split}, {"stored", r.stored}};
  if (!info.modality.empty()) meta["modality"] = info.modality;
  if (!info.top_region_index.empty()) meta["top_region_index"] = info.top_region_index;
  if (!info.bottom_region_index.empty()) meta["bottom_region_index"] = info.bottom_region_index;
  write_image_conditioning(conditioning_of(r), meta);  // the image's own (its datalist entry's) over the job's
  write_string_atomically(path + ".json", meta.dump(4) + "\n");

  // [C, X, Y, Z] -> NIfTI's order (x fastest, then y, z, channel): the array
  // [C, Z, Y, X] in C order, which nibabel reads back as [X, Y, Z, C].
  const at::Tensor data = r.latent.to(at::kCPU, at::kFloat).permute({0, 3, 2, 1}).contiguous();
  ChannelVolume v;
  v.channels = static_cast<std::size_t>(r.latent.size(0));
  for (int a = 0; a < 3; ++a) v.size[static_cast<std::size_t>(a)] = static_cast<std::size_t>(r.latent.size(a + 1));
  // The image's spacing, not the latent's: NV-Generate saves the latent with
  // the preprocessed image's affine, and its tutorial fills the JSON's
  // spacing from this header; a latent-sized pixdim would reach the UNet x4.
  v.spacing = r.image_spacing;
  v.origin = info.origin;
  v.direction = info.direction;
  v.voxels.assign(data.data_ptr<float>(), data.data_ptr<float>() + data.numel());
  write_channel_volume(v, path);
}

bool holds_only_maisi_embeddings(const std::string& dir) {
  if (!fs::is_directory(dir)) return false;
  return !files_under(dir, suffix).empty() && files_under(dir, "_emb.safetensors").empty();
}

std::vector<LatentRecord> read_maisi_embeddings(const std::string& dir, const std::string& split,
                                                const LatentRequirements& required) {
  std::vector<LatentRecord> out;
  const std::string end = suffix;
  for (const auto& file : files_under(dir, end)) {
    const std::string path = file.string();
    const std::string json_path = path + ".json";
    const MaisiEmbeddingMetadata meta = read_maisi_embedding_metadata(json_path);
    LatentRecord r;
    const std::string relative = file.lexically_relative(dir).generic_string();
    r.id = relative.substr(0, relative.size() - end.size());
    r.file = path;
    r.image_spacing = meta.spacing;
    r.image_size = meta.dim;
    r.split = meta.split;
    r.stored = meta.stored;
    set_conditioning(r, meta.conditioning);
    if (!split.empty() && r.split != split) continue;

    const ChannelVolume v = read_channel_volume(path);
    const auto c = static_cast<std::int64_t>(v.channels);
    const std::int64_t x = static_cast<std::int64_t>(v.size[0]), y = static_cast<std::int64_t>(v.size[1]),
                       z = static_cast<std::int64_t>(v.size[2]);
    // NIfTI's order read as [C, Z, Y, X], turned back to the UNet's [C, X, Y, Z].
    auto latent = at::empty({c, z, y, x}, at::kFloat);
    std::memcpy(latent.data_ptr<float>(), v.voxels.data(), v.voxels.size() * sizeof(float));
    r.latent = latent.permute({0, 3, 2, 1}).contiguous();
    check_latent(r, required);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace medsynth

// A latent in NV-Generate-CTMR's embedding layout, as its
// diff_model_create_training_data.py leaves it: <id>_emb.nii.gz holding a
// [C, X, Y, Z] latent as nibabel's [X, Y, Z, C] (x fastest), and its JSON
// beside it (none when `meta` is null). For the tests of that layout.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "volume/channel_volume_io.hpp"

namespace medsynth::test {

inline void write_nv_generate_embedding(const std::filesystem::path& path, const at::Tensor& latent,
                                        const nlohmann::json& meta) {
  std::filesystem::create_directories(path.parent_path());
  const auto data = latent.permute({0, 3, 2, 1}).contiguous();
  ChannelVolume v;
  v.channels = static_cast<std::size_t>(latent.size(0));
  for (int a = 0; a < 3; ++a) v.size[static_cast<std::size_t>(a)] = static_cast<std::size_t>(latent.size(a + 1));
  v.spacing = {1.5, 1.2, 2.0};
  v.voxels.assign(data.data_ptr<float>(), data.data_ptr<float>() + data.numel());
  write_channel_volume(v, path.string());
  if (!meta.is_null()) std::ofstream(path.string() + ".json") << meta.dump(4);
}

}  // namespace medsynth::test

#include "train/training_data.hpp"

#include <algorithm>

#include "data/volume_tensor.hpp"

namespace medsynth {

std::vector<std::size_t> validation_items(std::size_t dataset_size, int max_volumes, int rank, int world_size) {
  const std::size_t count =
      max_volumes > 0 ? std::min<std::size_t>(static_cast<std::size_t>(max_volumes), dataset_size) : dataset_size;
  std::vector<std::size_t> items;
  for (std::size_t i = static_cast<std::size_t>(rank); i < count;
       i += static_cast<std::size_t>(std::max(world_size, 1)))
    items.push_back(i);
  return items;
}

void keep_validation_item(ValidationResult& result, std::size_t n, int keep_outputs, const std::string& item,
                          const Volume& input, const at::Tensor& output, std::string stem) {
  const bool kept = n < static_cast<std::size_t>(std::max(keep_outputs, 0));
  if (n != 0 && !kept) return;
  Volume volume = tensor_to_volume(output, input);
  if (n == 0) result.images = validation_images(item, input, volume);
  if (kept) result.outputs.emplace_back(std::move(stem), std::move(volume));
}

}  // namespace medsynth

#include "train/training_data.hpp"

#include <algorithm>

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

}  // namespace medsynth

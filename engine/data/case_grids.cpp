#include "data/case_grids.hpp"

#include <memory>

#include "core/error.hpp"

namespace medsynth {

void throw_contrast_off_grid(const VolumeDataset& other, const VolumeDataset& first, std::size_t item) {
  throw DataError(other.path(item), "case " + first.id(item) + ": this contrast's grid differs from " +
                                        first.path(item) +
                                        "'s; the contrasts of a case must share one grid (co-registered, as BraTS "
                                        "ships them)");
}

void check_contrast_grid(const Volume& v, const Volume& reference, const VolumeDataset& other,
                         const VolumeDataset& first, std::size_t item) {
  if (!same_grid(v, reference)) throw_contrast_off_grid(other, first, item);
}

void check_case_grids(const VolumeDataset& first, const std::vector<const VolumeDataset*>& others) {
  for (const VolumeDataset* other : others) {
    if (other->size() != first.size())
      throw RuntimeError("check_case_grids: a contrast has " + std::to_string(other->size()) + " cases, the first " +
                         std::to_string(first.size()));
    for (std::size_t i = 0; i < first.size(); ++i) {
      const auto& a = first.header_grid(i);
      const auto& b = other->header_grid(i);
      if (a && b && same_header_grid(*a, *b)) continue;
      const std::shared_ptr<const Volume> reference = first.share(i), v = other->share(i);
      check_contrast_grid(*v, *reference, *other, first, i);
    }
  }
}

}  // namespace medsynth

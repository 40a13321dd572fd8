#include "data/tumour_free_label.hpp"

#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <utility>

namespace medsynth {
namespace {

// Tumour classes whose organ is one fixed class.
constexpr std::array<std::pair<int, int>, 7> kTumourToOrgan{
    {{26, 1}, {24, 4}, {27, 62}, {401, 22}, {402, 22}, {403, 22}, {176, 22}}};
constexpr int kLungTumour = 23;
constexpr std::array<int, 5> kLungLobes{28, 29, 30, 31, 32};

// [X, Y, Z] bool: `mask` dilated by a 3x3x3 cube with the outside counted as
// set (NV-Generate's dilate_one_img(..., pad_value=1.0)).
at::Tensor dilate_padding_with_one(const at::Tensor& mask) {
  const auto padded = at::constant_pad_nd(mask.to(at::kFloat).unsqueeze(0).unsqueeze(0), {1, 1, 1, 1, 1, 1}, 1.0);
  return at::max_pool3d(padded, {3, 3, 3}, {1, 1, 1}).squeeze(0).squeeze(0).gt(0.5);
}

// The lobe that fills a lung tumour: the most frequent among `candidates`,
// the lowest value on a tie; -1 when none is there.
int most_frequent_lobe(const at::Tensor& candidates) {
  int best = -1;
  std::int64_t best_count = 0;
  for (int lobe : kLungLobes) {
    const auto count = candidates.eq(lobe).sum().item<std::int64_t>();
    if (count > best_count) best = lobe, best_count = count;
  }
  return best;
}

}  // namespace

at::Tensor tumour_free_label(const at::Tensor& labels) {
  auto out = labels.clone();
  for (const auto& [tumour, organ] : kTumourToOrgan) out.masked_fill_(labels.eq(tumour), organ);
  const auto tumour = out.eq(kLungTumour);
  if (!tumour.any().item<bool>()) return out;
  const auto ring = dilate_padding_with_one(tumour).logical_and(tumour.logical_not());
  int lobe = most_frequent_lobe(out.masked_select(ring));
  // NV-Generate's fallback: argmax of the lobes' counts in the whole map,
  // which is the first lobe (28) when there is none.
  if (lobe < 0) lobe = most_frequent_lobe(out);
  if (lobe < 0) lobe = kLungLobes.front();
  out.masked_fill_(tumour, lobe);
  return out;
}

}  // namespace medsynth

#include "flop_counter.hpp"

#include <ATen/ATen.h>
#include <ATen/record_function.h>

namespace medsynth::bench {
namespace {

std::atomic<std::uint64_t>* g_target = nullptr;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!g_target || std::string_view(fn.name()) != "aten::convolution") return nullptr;
  auto inputs = fn.inputs();
  if (inputs.size() < 9 || !inputs[0].isTensor() || !inputs[1].isTensor()) return nullptr;
  const auto in = inputs[0].toTensor().sizes();
  const auto w = inputs[1].toTensor().sizes();
  const auto stride = inputs[3].toIntVector();
  const auto padding = inputs[4].toIntVector();
  const auto dilation = inputs[5].toIntVector();
  const bool transposed = inputs[6].toBool();
  const int64_t groups = inputs[8].toInt();
  const std::size_t dims = in.size() - 2;
  // at::conv3d(x, w, b, 1, 1) hands aten::convolution one value for every
  // axis (ATen expands it later): read a one-element list as that value.
  const auto axis = [](const std::vector<int64_t>& v, std::size_t d) { return v.size() == 1 ? v[0] : v[d]; };
  double out_spatial = 1, kernel = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    const int64_t k = w[2 + d];
    kernel *= static_cast<double>(k);
    const int64_t s = axis(stride, d), p = axis(padding, d), l = axis(dilation, d);
    const int64_t o =
        transposed ? (in[2 + d] - 1) * s - 2 * p + l * (k - 1) + 1 : (in[2 + d] + 2 * p - l * (k - 1) - 1) / s + 1;
    out_spatial *= static_cast<double>(o);
  }
  const double cin = static_cast<double>(transposed ? w[0] : w[1] * groups);
  const double cout = static_cast<double>(transposed ? w[1] * groups : w[0]);
  // For a transposed conv the MACs are counted on the input grid.
  double spatial = out_spatial;
  if (transposed) {
    spatial = 1;
    for (std::size_t d = 0; d < dims; ++d) spatial *= static_cast<double>(in[2 + d]);
  }
  const double flops = 2.0 * static_cast<double>(in[0]) * cout * spatial * (cin / groups) * kernel;
  g_target->fetch_add(static_cast<std::uint64_t>(flops));
  return nullptr;
}

}  // namespace

ConvFlopCounter::ConvFlopCounter() {
  g_target = &flops_;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(on_start).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
}

ConvFlopCounter::~ConvFlopCounter() {
  at::removeCallback(handle_);
  g_target = nullptr;
}

}  // namespace medsynth::bench

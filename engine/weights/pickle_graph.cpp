// The arena of a running pickle, and its conversion into a PickleValue tree.
// The conversion is where a hostile graph is bounded: cycles and deep nesting
// stop at PickleLimits::max_depth, and a small graph that shares one list or
// one string many times over cannot expand past PickleLimits::max_values or
// PickleLimits::max_expanded_bytes.
#include "weights/pickle_graph.hpp"

#include <ATen/ATen.h>

#include <map>

#include "core/error.hpp"

namespace medsynth::pickle {

std::uint32_t Graph::add(Node node) {
  if (nodes.size() >= limits.max_values)
    fail("pickle holds more than " + std::to_string(limits.max_values) + " values");
  nodes.push_back(std::move(node));
  return static_cast<std::uint32_t>(nodes.size() - 1);
}

void Graph::fail(const std::string& reason) const { throw DataError(path, where.empty() ? reason : where + ": " + reason); }

namespace {

class TreeBuilder {
 public:
  TreeBuilder(const Graph& graph, const StorageLoader& load) : g_(graph), load_(load) {}

  PickleValue build(std::uint32_t index, std::size_t depth) {
    if (depth > g_.limits.max_depth) g_.fail("nested deeper than " + std::to_string(g_.limits.max_depth) + " levels");
    if (++count_ > g_.limits.max_values)
      g_.fail("pickle expands to more than " + std::to_string(g_.limits.max_values) + " values");
    const Node& n = g_.at(index);
    bytes_ += sizeof(PickleValue) + n.text.size() + n.items.size() * sizeof(PickleValue);
    if (bytes_ > g_.limits.max_expanded_bytes)
      g_.fail("pickle expands to more than " + std::to_string(g_.limits.max_expanded_bytes >> 20) +
              " MiB (a value it shares is counted each time it is used)");
    switch (n.kind) {
      case NodeKind::none: return {PickleValue::None{}};
      case NodeKind::boolean: return {n.integer != 0};
      case NodeKind::integer: return {n.integer};
      case NodeKind::real: return {n.real};
      case NodeKind::string: return {n.text};
      case NodeKind::bytes: return {PickleValue::Bytes{n.text}};
      case NodeKind::list: return {PickleValue::List{items(n, depth)}};
      case NodeKind::tuple: return {PickleValue::Tuple{items(n, depth)}};
      case NodeKind::dict: return {dict(n, depth)};
      case NodeKind::storage: return {storage(n)};
      case NodeKind::tensor: return {tensor(n)};
      case NodeKind::global: break;
    }
    g_.fail("the global '" + n.text + "' appears as a value, not as a call");
  }

 private:
  std::vector<PickleValue> items(const Node& n, std::size_t depth) {
    std::vector<PickleValue> out;
    out.reserve(n.items.size());
    for (std::uint32_t i : n.items) out.push_back(build(i, depth + 1));
    return out;
  }

  PickleValue::Dict dict(const Node& n, std::size_t depth) {
    PickleValue::Dict out;
    out.items.reserve(n.items.size() / 2);
    for (std::size_t i = 0; i + 1 < n.items.size(); i += 2)
      out.items.emplace_back(build(n.items[i], depth + 1), build(n.items[i + 1], depth + 1));
    return out;
  }

  // Each storage is loaded once; tensors sharing it stay views of it, as in torch.
  at::Tensor storage(const Node& n) {
    const auto index = static_cast<std::size_t>(n.integer);
    auto found = loaded_.find(index);
    if (found != loaded_.end()) return found->second;
    const StorageRef& ref = g_.storages[index];
    at::Tensor t = load_(ref);
    if (!t.defined() || t.dim() != 1 || t.numel() != ref.numel || t.scalar_type() != ref.dtype || !t.is_contiguous())
      g_.fail("storage '" + ref.key + "' was loaded with the wrong shape or type");
    return loaded_.emplace(index, t).first->second;
  }

  at::Tensor tensor(const Node& n) {
    return storage(g_.at(n.storage)).as_strided(n.sizes, n.strides, n.offset);
  }

  const Graph& g_;
  const StorageLoader& load_;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;  // counted before each value is built
  std::map<std::size_t, at::Tensor> loaded_;
};

}  // namespace

PickleValue Unpickled::value(const StorageLoader& load) const {
  TreeBuilder builder(*graph_, load);
  return builder.build(graph_->root, 0);
}

}  // namespace medsynth::pickle

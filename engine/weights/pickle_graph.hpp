// The values a running pickle builds, kept in one arena and addressed by
// index: memo references, shared sub-objects and even cycles (which a hostile
// file can make with APPEND) cost nothing until the PickleValue is built, and
// that step bounds depth and size. Shared by pickle_machine.cpp (opcodes),
// pickle_globals.cpp (the whitelist and what calling it builds) and
// pickle_graph.cpp (the arena and the PickleValue it becomes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "weights/pickle_machine.hpp"

namespace medsynth::pickle {

enum class NodeKind { none, boolean, integer, real, string, bytes, list, tuple, dict, global, storage, tensor };

// What calling a whitelisted global builds.
enum class Global {
  ordered_dict,
  rebuild_tensor,     // torch._utils._rebuild_tensor (torch 0.4 files)
  rebuild_tensor_v2,
  rebuild_parameter,  // also _rebuild_parameter_with_state
  storage_type,       // torch.FloatStorage ...: only named by persistent ids
  torch_size,
  torch_device,
  codecs_encode,      // how protocol 2 pickles bytes
};

struct Node {
  NodeKind kind = NodeKind::none;
  std::int64_t integer = 0;          // boolean, integer; storage: index in Graph::storages
  double real = 0;
  std::string text;                  // string, bytes; global: "module.name"
  std::vector<std::uint32_t> items;  // list, tuple; dict: key, value, key, value ...
  Global global = Global::ordered_dict;
  at::ScalarType dtype = at::kFloat;  // global storage_type
  std::uint32_t storage = 0;          // tensor: its storage node
  std::int64_t offset = 0;            // tensor, in elements
  std::vector<std::int64_t> sizes, strides;
};

struct Graph {
  std::string path;   // the file, for DataError
  std::string where;  // the record inside it, may be empty
  PickleLimits limits;
  std::vector<Node> nodes;
  std::vector<StorageRef> storages;
  std::unordered_map<std::string, std::size_t> storage_index;  // key -> storages[]
  std::size_t end = 0;      // offset after STOP
  std::uint32_t root = 0;   // the value STOP returns

  // Appends a node; DataError past limits.max_values.
  std::uint32_t add(Node node);
  const Node& at(std::uint32_t index) const { return nodes[index]; }
  [[noreturn]] void fail(const std::string& reason) const;
};

// GLOBAL / STACK_GLOBAL: a global node, or DataError for anything off the whitelist.
std::uint32_t load_global(Graph& graph, const std::string& module, const std::string& name);
// REDUCE / NEWOBJ: the value a whitelisted callable builds from an argument tuple.
std::uint32_t call_global(Graph& graph, std::uint32_t callable, std::uint32_t args);
// BINPERSID: the storage node a persistent id names.
std::uint32_t persistent_load(Graph& graph, std::uint32_t pid);
// BUILD: accepted (and ignored) only on dicts: the `_metadata` of a state dict.
void build_state(const Graph& graph, std::uint32_t object);

}  // namespace medsynth::pickle

// The whitelist of the restricted pickle machine and what each entry builds.
// Nothing is ever called: REDUCE on a whitelisted global builds a graph node
// (a dict, a tensor recipe, a tuple), and any other global is refused by name
// when the pickle first mentions it.
#include <string_view>

#include "weights/pickle_graph.hpp"

namespace medsynth::pickle {
namespace {

struct Allowed {
  const char* module;
  const char* name;
  Global global;
  at::ScalarType dtype = at::kFloat;
};

const Allowed k_allowed[] = {
    {"collections", "OrderedDict", Global::ordered_dict},
    {"torch._utils", "_rebuild_tensor", Global::rebuild_tensor},
    {"torch._utils", "_rebuild_tensor_v2", Global::rebuild_tensor_v2},
    {"torch._utils", "_rebuild_parameter", Global::rebuild_parameter},
    {"torch._utils", "_rebuild_parameter_with_state", Global::rebuild_parameter},
    {"torch", "FloatStorage", Global::storage_type, at::kFloat},
    {"torch", "DoubleStorage", Global::storage_type, at::kDouble},
    {"torch", "HalfStorage", Global::storage_type, at::kHalf},
    {"torch", "BFloat16Storage", Global::storage_type, at::kBFloat16},
    {"torch", "LongStorage", Global::storage_type, at::kLong},
    {"torch", "IntStorage", Global::storage_type, at::kInt},
    {"torch", "ShortStorage", Global::storage_type, at::kShort},
    {"torch", "CharStorage", Global::storage_type, at::kChar},
    {"torch", "ByteStorage", Global::storage_type, at::kByte},
    {"torch", "BoolStorage", Global::storage_type, at::kBool},
    {"torch", "UntypedStorage", Global::storage_type, at::kByte},
    {"torch.storage", "UntypedStorage", Global::storage_type, at::kByte},
    {"torch", "Size", Global::torch_size},
    {"torch", "device", Global::torch_device},
    {"_codecs", "encode", Global::codecs_encode},
};

const Node& expect(const Graph& g, std::uint32_t index, NodeKind kind, const std::string& what) {
  const Node& n = g.at(index);
  if (n.kind != kind) g.fail(what);
  return n;
}

std::int64_t expect_int(const Graph& g, std::uint32_t index, const std::string& what) {
  return expect(g, index, NodeKind::integer, what).integer;
}

Node make(NodeKind kind) {
  Node n;
  n.kind = kind;
  return n;
}

// --- tensors

std::vector<std::int64_t> dims_of(const Graph& g, std::uint32_t tuple, const char* what) {
  const std::string err = std::string("tensor ") + what + " is not a tuple of integers >= 0";
  std::vector<std::int64_t> out;
  for (std::uint32_t item : expect(g, tuple, NodeKind::tuple, err).items) {
    std::int64_t v = expect_int(g, item, err);
    if (v < 0) g.fail(std::string("tensor has a negative ") + what + " (" + std::to_string(v) + ")");
    out.push_back(v);
  }
  if (out.size() > g.limits.max_dims) g.fail("tensor has more than " + std::to_string(g.limits.max_dims) + " dimensions");
  return out;
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// The tensor must stay inside its storage: offset + sum((size-1)*stride) < numel.
void check_extent(const Graph& g, const Node& t, std::int64_t storage_numel) {
  std::int64_t last = t.offset, count = 1;
  bool empty = false;
  for (std::size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] == 0) empty = true;
    std::int64_t step = 0;
    if (t.sizes[i] > 0 && (__builtin_mul_overflow(t.sizes[i] - 1, t.strides[i], &step) ||
                           __builtin_add_overflow(last, step, &last) ||
                           __builtin_mul_overflow(count, t.sizes[i], &count)))
      g.fail("tensor of size " + dims_text(t.sizes) + " overflows 64 bits");
  }
  if (empty ? t.offset <= storage_numel : last < storage_numel) return;
  g.fail("tensor of size " + dims_text(t.sizes) + ", stride " + dims_text(t.strides) + " and offset " +
         std::to_string(t.offset) + " reaches outside its storage of " + std::to_string(storage_numel) + " elements");
}

std::uint32_t rebuild_tensor(Graph& g, const std::vector<std::uint32_t>& args, bool v2) {
  const std::string sig = "_rebuild_tensor expects (storage, offset, size, stride, ...)";
  if (args.size() < 4 || (v2 && args.size() > 7) || (!v2 && args.size() != 4)) g.fail(sig);
  const Node& storage = expect(g, args[0], NodeKind::storage, sig);
  Node t = make(NodeKind::tensor);
  t.storage = args[0];
  t.offset = expect_int(g, args[1], sig);
  if (t.offset < 0) g.fail("tensor has a negative storage offset (" + std::to_string(t.offset) + ")");
  t.sizes = dims_of(g, args[2], "size");
  t.strides = dims_of(g, args[3], "stride");
  if (t.sizes.size() != t.strides.size()) g.fail("tensor size and stride differ in length");
  check_extent(g, t, g.storages[static_cast<std::size_t>(storage.integer)].numel);
  return g.add(std::move(t));
}

// --- small builtins

std::uint32_t torch_size(Graph& g, const std::vector<std::uint32_t>& args) {
  if (args.size() != 1) g.fail("torch.Size expects one tuple");
  Node t = make(NodeKind::tuple);
  t.items = expect(g, args[0], NodeKind::tuple, "torch.Size expects one tuple").items;
  return g.add(std::move(t));
}

std::uint32_t torch_device(Graph& g, const std::vector<std::uint32_t>& args) {
  const std::string sig = "torch.device expects (type[, index])";
  if (args.empty() || args.size() > 2) g.fail(sig);
  Node s = make(NodeKind::string);
  s.text = expect(g, args[0], NodeKind::string, sig).text;
  if (args.size() == 2) {
    const auto index = std::to_string(expect_int(g, args[1], sig));
    s.text.push_back(':');
    s.text.append(index);  // appended, not `":" + index`: GCC 12 warns falsely on that temporary
  }
  return g.add(std::move(s));
}

// _codecs.encode(text, 'latin1'): the bytes whose code points the UTF-8 text holds.
std::uint32_t codecs_encode(Graph& g, const std::vector<std::uint32_t>& args) {
  const std::string sig = "_codecs.encode expects (text, 'latin1')";
  if (args.size() != 2) g.fail(sig);
  const std::string& enc = expect(g, args[1], NodeKind::string, sig).text;
  if (enc != "latin1" && enc != "latin-1") g.fail(sig);
  const std::string& in = expect(g, args[0], NodeKind::string, sig).text;
  Node out = make(NodeKind::bytes);
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    if (c < 0x80) {
      out.text += static_cast<char>(c);
    } else if ((c & 0xFE) == 0xC2 && i + 1 < in.size()) {  // U+0080..U+00FF
      out.text += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(in[++i]) & 0x3F));
    } else {
      g.fail("_codecs.encode: text is not latin-1");
    }
  }
  return g.add(std::move(out));
}

}  // namespace

std::uint32_t load_global(Graph& g, const std::string& module, const std::string& name) {
  for (const Allowed& a : k_allowed) {
    if (module != a.module || name != a.name) continue;
    Node n = make(NodeKind::global);
    n.global = a.global;
    n.dtype = a.dtype;
    n.text = module + "." + name;
    return g.add(std::move(n));
  }
  g.fail("refuses to load global '" + module + "." + name + "' (only tensors, containers and numbers are read)");
}

std::uint32_t call_global(Graph& g, std::uint32_t callable, std::uint32_t args_index) {
  const Node& f = g.at(callable);
  if (f.kind != NodeKind::global) g.fail("pickle calls something that is not a whitelisted global");
  const std::string name = f.text;
  const Global which = f.global;
  const auto args = expect(g, args_index, NodeKind::tuple, name + " called without an argument tuple").items;
  switch (which) {
    case Global::ordered_dict:
      if (!args.empty()) g.fail("collections.OrderedDict called with arguments");
      return g.add(make(NodeKind::dict));
    case Global::rebuild_tensor: return rebuild_tensor(g, args, false);
    case Global::rebuild_tensor_v2: return rebuild_tensor(g, args, true);
    case Global::rebuild_parameter:
      if (args.size() < 3 || args.size() > 4) g.fail(name + " expects (data, requires_grad, hooks[, state])");
      expect(g, args[0], NodeKind::tensor, name + " expects a tensor");
      return args[0];
    case Global::torch_size: return torch_size(g, args);
    case Global::torch_device: return torch_device(g, args);
    case Global::codecs_encode: return codecs_encode(g, args);
    case Global::storage_type: break;
  }
  g.fail("pickle calls " + name + ", which is only read as a storage type");
}

std::uint32_t persistent_load(Graph& g, std::uint32_t pid_index) {
  const std::string sig = "persistent id is not ('storage', type, key, location, numel)";
  const auto pid = expect(g, pid_index, NodeKind::tuple, sig).items;
  if ((pid.size() != 5 && pid.size() != 6) || expect(g, pid[0], NodeKind::string, sig).text != "storage") g.fail(sig);
  const Node& type = expect(g, pid[1], NodeKind::global, sig);
  if (type.global != Global::storage_type) g.fail(sig);
  StorageRef ref{expect(g, pid[2], NodeKind::string, sig).text, type.dtype, expect_int(g, pid[4], sig)};
  expect(g, pid[3], NodeKind::string, sig);
  if (pid.size() == 6 && g.at(pid[5]).kind != NodeKind::none)
    g.fail("storage views (files of torch before 1.0) are not supported");
  if (ref.numel < 0) g.fail("storage '" + ref.key + "' has a negative size");
  if (ref.key.empty() || ref.key.size() > 64 || ref.key.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz"
                                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != std::string::npos)
    g.fail("storage key '" + ref.key.substr(0, 64) + "' is not a plain name");
  auto [it, added] = g.storage_index.emplace(ref.key, g.storages.size());
  const std::size_t index = it->second;
  if (added) {
    g.storages.push_back(ref);
  } else if (g.storages[index].dtype != ref.dtype || g.storages[index].numel != ref.numel) {
    g.fail("storage '" + ref.key + "' is named with two different types or sizes");
  }
  Node n = make(NodeKind::storage);
  n.integer = static_cast<std::int64_t>(index);
  return g.add(std::move(n));
}

void build_state(const Graph& g, std::uint32_t object) {
  if (g.at(object).kind != NodeKind::dict) g.fail("pickle BUILD on something other than a dict");
}

}  // namespace medsynth::pickle

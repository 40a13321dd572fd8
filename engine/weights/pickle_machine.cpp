// The opcode loop of the restricted pickle machine: reads, bounds-checks and
// stacks; what globals build lives in pickle_globals.cpp.
#include "weights/pickle_machine.hpp"

#include <cstdio>
#include <cstring>
#include <limits>

#include "weights/pickle_graph.hpp"

namespace medsynth::pickle {
namespace {

constexpr std::uint32_t k_unset = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t k_max_global_name = 256;

class Machine {
 public:
  Machine(Graph& graph, std::string_view bytes, std::size_t offset)
      : g_(graph), bytes_(bytes), start_(offset), pos_(offset) {}

  void run() {
    while (step()) {
      if (pos_ - start_ > g_.limits.max_bytes)
        fail_here("pickle is longer than the limit of " + std::to_string(g_.limits.max_bytes) + " bytes");
    }
    g_.end = pos_;
  }

 private:
  bool step();
  bool step_containers(std::uint8_t op);
  bool step_calls(std::uint8_t op);

  [[noreturn]] void fail_here(const std::string& reason) const {
    g_.fail(reason + " (pickle opcode at byte " + std::to_string(op_pos_) + ")");
  }

  // --- reading, every read bounds-checked
  std::string_view take(std::uint64_t n) {
    if (n > bytes_.size() - pos_) g_.fail("truncated at byte " + std::to_string(bytes_.size()));
    std::string_view out = bytes_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return out;
  }
  std::uint64_t little(int n) {
    std::string_view b = take(static_cast<std::uint64_t>(n));
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(b[static_cast<std::size_t>(i)]);
    return v;
  }
  std::string line() {
    std::size_t nl = bytes_.find('\n', pos_);
    if (nl == std::string_view::npos) g_.fail("truncated at byte " + std::to_string(bytes_.size()));
    if (nl - pos_ > k_max_global_name) fail_here("GLOBAL name longer than 256 bytes");
    std::string out(bytes_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return out;
  }

  // --- the stack, the marks and the memo
  void push(std::uint32_t index) {
    if (stack_.size() >= g_.limits.max_values) fail_here("pickle stack exceeds the value limit");
    stack_.push_back(index);
  }
  void push(Node node) { push(g_.add(std::move(node))); }
  std::uint32_t pop() {
    if (stack_.size() <= floor()) fail_here("pickle stack underflow");
    std::uint32_t v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::uint32_t top() {
    if (stack_.size() <= floor()) fail_here("pickle stack underflow");
    return stack_.back();
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  void mark() {
    if (marks_.size() >= g_.limits.max_depth)
      fail_here("nested deeper than " + std::to_string(g_.limits.max_depth) + " levels");
    marks_.push_back(stack_.size());
  }
  std::vector<std::uint32_t> pop_mark() {
    if (marks_.empty()) fail_here("pickle MARK missing");
    std::vector<std::uint32_t> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  void memo_put(std::uint64_t index) {
    if (index >= g_.limits.max_memo)
      fail_here("pickle memo index " + std::to_string(index) + " exceeds the limit of " +
                std::to_string(g_.limits.max_memo));
    if (index >= memo_.size()) memo_.resize(static_cast<std::size_t>(index) + 1, k_unset);
    memo_[static_cast<std::size_t>(index)] = top();
  }
  void memo_get(std::uint64_t index) {
    if (index >= memo_.size() || memo_[static_cast<std::size_t>(index)] == k_unset)
      fail_here("pickle memo entry " + std::to_string(index) + " is not set");
    push(memo_[static_cast<std::size_t>(index)]);
  }

  // --- values
  static Node scalar(NodeKind kind, std::int64_t v) {
    Node n;
    n.kind = kind;
    n.integer = v;
    return n;
  }
  static Node text(NodeKind kind, std::string_view s) {
    Node n;
    n.kind = kind;
    n.text = std::string(s);
    return n;
  }
  static Node sequence(NodeKind kind, std::vector<std::uint32_t> items) {
    Node n;
    n.kind = kind;
    n.items = std::move(items);
    return n;
  }
  void push_long(std::uint64_t n) {
    if (n > 8) fail_here("integer wider than 64 bits");
    std::string_view b = take(n);
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(b[i]);
    if (n > 0 && n < 8 && (static_cast<std::uint8_t>(b[n - 1]) & 0x80)) v |= ~std::uint64_t{0} << (8 * n);
    push(scalar(NodeKind::integer, static_cast<std::int64_t>(v)));
  }
  void push_float() {
    std::uint64_t bits = 0;
    for (char c : take(8)) bits = (bits << 8) | static_cast<std::uint8_t>(c);  // big-endian
    Node n;
    n.kind = NodeKind::real;
    std::memcpy(&n.real, &bits, sizeof bits);
    push(std::move(n));
  }
  void push_tuple(std::size_t count) {
    std::vector<std::uint32_t> items(count);
    for (std::size_t i = count; i-- > 0;) items[i] = pop();
    push(sequence(NodeKind::tuple, std::move(items)));
  }
  Node& target(NodeKind kind, const char* op) {
    Node& n = g_.nodes[top()];
    if (n.kind != kind) fail_here(std::string(op) + " on a value that is not a " + (kind == NodeKind::dict ? "dict" : "list"));
    return n;
  }
  void set_items(std::vector<std::uint32_t> kv) {
    if (kv.size() % 2 != 0) fail_here("SETITEMS with an odd number of values");
    Node& dict = target(NodeKind::dict, "SETITEMS");
    dict.items.insert(dict.items.end(), kv.begin(), kv.end());
  }
  void append(std::vector<std::uint32_t> values) {
    Node& list = target(NodeKind::list, "APPENDS");
    list.items.insert(list.items.end(), values.begin(), values.end());
  }
  void stack_global() {
    std::uint32_t name = pop(), module = pop();
    if (g_.at(name).kind != NodeKind::string || g_.at(module).kind != NodeKind::string)
      fail_here("STACK_GLOBAL without two strings");
    push(load_global(g_, g_.at(module).text, g_.at(name).text));
  }
  void reduce() {
    std::uint32_t args = pop(), callable = pop();
    push(call_global(g_, callable, args));
  }
  void build() {
    pop();  // the state: only a state dict's `_metadata`, which we do not need
    build_state(g_, top());
  }

  Graph& g_;
  std::string_view bytes_;
  std::size_t start_;
  std::size_t pos_;
  std::size_t op_pos_ = 0;
  std::vector<std::uint32_t> stack_, marks_, memo_;
};

// Opcodes that push constants or touch the memo; the rest are delegated.
bool Machine::step() {
  op_pos_ = pos_;
  const auto op = static_cast<std::uint8_t>(take(1)[0]);
  switch (op) {
    case 0x80: if (little(1) > 5) fail_here("pickle protocol above 5"); return true;  // PROTO
    case 0x95: little(8); return true;                                                // FRAME
    case '.':                                                                         // STOP
      if (!marks_.empty()) fail_here("STOP inside a MARK");
      g_.root = top();
      return false;
    case 'N': push(Node{}); return true;
    case 0x88: push(scalar(NodeKind::boolean, 1)); return true;  // NEWTRUE
    case 0x89: push(scalar(NodeKind::boolean, 0)); return true;  // NEWFALSE
    case 'J': push(scalar(NodeKind::integer, static_cast<std::int32_t>(little(4)))); return true;  // BININT
    case 'K': push(scalar(NodeKind::integer, static_cast<std::int64_t>(little(1)))); return true;  // BININT1
    case 'M': push(scalar(NodeKind::integer, static_cast<std::int64_t>(little(2)))); return true;  // BININT2
    case 0x8a: push_long(little(1)); return true;  // LONG1
    case 0x8b: push_long(little(4)); return true;  // LONG4
    case 'G': push_float(); return true;           // BINFLOAT
    case 'X': push(text(NodeKind::string, take(little(4)))); return true;     // BINUNICODE
    case 0x8c: push(text(NodeKind::string, take(little(1)))); return true;    // SHORT_BINUNICODE
    case 0x8d: push(text(NodeKind::string, take(little(8)))); return true;    // BINUNICODE8
    case 'T': push(text(NodeKind::string, take(little(4)))); return true;     // BINSTRING (Python 2)
    case 'U': push(text(NodeKind::string, take(little(1)))); return true;     // SHORT_BINSTRING
    case 'B': push(text(NodeKind::bytes, take(little(4)))); return true;      // BINBYTES
    case 'C': push(text(NodeKind::bytes, take(little(1)))); return true;      // SHORT_BINBYTES
    case 0x8e: push(text(NodeKind::bytes, take(little(8)))); return true;     // BINBYTES8
    case 'q': memo_put(little(1)); return true;        // BINPUT
    case 'r': memo_put(little(4)); return true;        // LONG_BINPUT
    case 0x94: memo_put(memo_.size()); return true;    // MEMOIZE
    case 'h': memo_get(little(1)); return true;        // BINGET
    case 'j': memo_get(little(4)); return true;        // LONG_BINGET
    default: break;
  }
  if (step_containers(op) || step_calls(op)) return true;
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  fail_here(std::string("unsupported pickle opcode ") + hex);
}

bool Machine::step_containers(std::uint8_t op) {
  switch (op) {
    case '(': mark(); return true;                                             // MARK
    case '}': push(sequence(NodeKind::dict, {})); return true;                 // EMPTY_DICT
    case ']': push(sequence(NodeKind::list, {})); return true;                 // EMPTY_LIST
    case ')': push(sequence(NodeKind::tuple, {})); return true;                // EMPTY_TUPLE
    case 0x85: push_tuple(1); return true;                                     // TUPLE1
    case 0x86: push_tuple(2); return true;                                     // TUPLE2
    case 0x87: push_tuple(3); return true;                                     // TUPLE3
    case 't': push(sequence(NodeKind::tuple, pop_mark())); return true;        // TUPLE
    case 's': { std::uint32_t v = pop(), k = pop(); set_items({k, v}); return true; }  // SETITEM
    case 'u': set_items(pop_mark()); return true;                              // SETITEMS
    case 'a': { std::uint32_t v = pop(); append({v}); return true; }           // APPEND
    case 'e': append(pop_mark()); return true;                                 // APPENDS
    default: return false;
  }
}

bool Machine::step_calls(std::uint8_t op) {
  switch (op) {
    case 'c': { std::string module = line(); push(load_global(g_, module, line())); return true; }  // GLOBAL
    case 0x93: stack_global(); return true;                                  // STACK_GLOBAL
    case 'R': reduce(); return true;                                         // REDUCE
    case 0x81: reduce(); return true;                                        // NEWOBJ: cls(*args) alike
    case 'b': build(); return true;                                          // BUILD
    case 'Q': push(persistent_load(g_, pop())); return true;                 // BINPERSID
    default: return false;
  }
}

}  // namespace

Unpickled::Unpickled(std::unique_ptr<Graph> graph) : graph_(std::move(graph)) {}
Unpickled::Unpickled(Unpickled&&) noexcept = default;
Unpickled& Unpickled::operator=(Unpickled&&) noexcept = default;
Unpickled::~Unpickled() = default;

std::size_t Unpickled::end() const { return graph_->end; }
const std::vector<StorageRef>& Unpickled::storages() const { return graph_->storages; }

Unpickled unpickle(std::string_view bytes, std::size_t offset, const std::string& path, const std::string& where,
                   const PickleLimits& limits) {
  auto graph = std::make_unique<Graph>();
  graph->path = path;
  graph->where = where;
  graph->limits = limits;
  if (offset > bytes.size()) graph->fail("truncated at byte " + std::to_string(bytes.size()));
  Machine machine(*graph, bytes, offset);
  machine.run();
  return Unpickled(std::move(graph));
}

}  // namespace medsynth::pickle

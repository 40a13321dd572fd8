// libFuzzer harness: the restricted pickle machine behind .pt/.pth weights.
//
// Feeds: the input bytes as a stream of pickles, the way the legacy torch
// format stores them (engine/weights/torch_archive.cpp reads the zip format's
// data.pkl as one pickle, a legacy file as several in a row): up to
// k_max_pickles times,
//   medsynth::pickle::unpickle(bytes, offset, ...)   (pickle_machine.cpp,
//       pickle_globals.cpp: opcodes, memo, whitelist of globals)
//   Unpickled::value(loader)                          (pickle_graph.cpp: the
//       bounded conversion into a PickleValue, tensors as views of storages)
//   a walk over the value that checks every tensor view lies inside its
//       storage's bytes (the invariant check_extent in pickle_globals.cpp keeps)
//   medsynth::state_dict_of / scalar_extras_of        (torch_archive_contents.cpp)
// then the next pickle starts at Unpickled::end(). The loader stands in for
// the zip records: a zero-filled 1-D CPU tensor of the requested dtype and
// numel, or a DataError when the storage would exceed k_max_storage_bytes
// (the real loaders refuse a numel that the file's bytes cannot hold, so a
// fuzz input of a few KB cannot have a larger storage either).
//
// Expected outcomes: values, or a medsynth::Error subclass (DataError naming
// the file: truncated, unsupported opcode, a global off the whitelist, a
// limit of PickleLimits hit, a tensor reaching outside its storage). A
// c10::Error (ATen refusing something) is accepted too, because
// read_torch_file turns it into a DataError; with MEDSYNTH_FUZZ_C10_IS_FINDING=1
// in the environment it is reported as a finding instead, to see whether the
// pickle layer's own checks miss something that ATen still catches.
//
// Findings: any other exception escaping (std::bad_alloc, std::length_error,
// ...: printed and aborted), the loader asked twice for one key in one
// value() call (its documented contract), a tensor view reaching outside its
// storage, Unpickled::end() not past the pickle's start, a crash, a hang (-timeout), memory
// over -rss_limit_mb, and every AddressSanitizer / UndefinedBehaviorSanitizer
// report.
#include "clang14_pickle_value.hpp"  // first: see there

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "weights/pickle_machine.hpp"
#include "weights/torch_archive.hpp"

namespace {

constexpr int k_max_pickles = 6;  // legacy: magic, protocol, sys_info, object, keys (+1)
constexpr std::int64_t k_max_storage_bytes = std::int64_t{1} << 20;
const std::string k_path = "fuzz.pt";

bool c10_is_finding() {
  static const bool strict = [] {
    const char* v = std::getenv("MEDSYNTH_FUZZ_C10_IS_FINDING");
    return v && *v && std::string(v) != "0";
  }();
  return strict;
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "\n==pickle_fuzzer== FINDING: %s\n", what.c_str());
  std::abort();
}

// The bytes a view reaches, [first, last] in its storage, must lie inside it.
void check_view(const at::Tensor& t) {
  if (!t.defined()) finding("an undefined tensor in the value");
  if (t.numel() == 0) return;
  std::int64_t last = t.storage_offset();
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) < 0) finding("a tensor view with a negative stride");
    std::int64_t step = 0;
    if (__builtin_mul_overflow(t.size(d) - 1, t.stride(d), &step) || __builtin_add_overflow(last, step, &last))
      finding("a tensor view whose extent overflows 64 bits");
  }
  const auto item = static_cast<std::int64_t>(t.element_size());
  const auto nbytes = static_cast<std::int64_t>(t.storage().nbytes());
  if (t.storage_offset() < 0 || last >= nbytes / item)
    finding("tensor view of " + std::to_string(t.numel()) + " elements reaches element " + std::to_string(last) +
            " of a storage of " + std::to_string(nbytes) + " bytes");
}

// Visits every value (bounded: value() refuses more than max_depth levels).
std::size_t walk(const medsynth::PickleValue& v) {
  using medsynth::PickleValue;
  std::size_t n = 1;
  if (const auto* list = v.get_if<PickleValue::List>()) {
    for (std::size_t i = 0; i < list->items.size(); ++i) n += walk(list->items[i]);
  } else if (const auto* tuple = v.get_if<PickleValue::Tuple>()) {
    for (std::size_t i = 0; i < tuple->items.size(); ++i) n += walk(tuple->items[i]);
  } else if (const auto* dict = v.get_if<PickleValue::Dict>()) {
    for (std::size_t i = 0; i < dict->items.size(); ++i) n += walk(dict->items[i].first) + walk(dict->items[i].second);
  } else if (const auto* tensor = v.get_if<at::Tensor>()) {
    check_view(*tensor);
  }
  return n;
}

// What import-maisi and the MedicalNet import do next with the value.
void consume(const medsynth::PickleValue& value) {
  try {
    const auto tensors = medsynth::state_dict_of(value, k_path);
    std::int64_t total = 0;
    for (const auto& [name, t] : tensors) total += t.numel() + static_cast<std::int64_t>(name.size());
    volatile std::int64_t sink = total;
    (void)sink;
  } catch (const medsynth::Error&) {
    // Expected: no tensors in it.
  }
  const auto extras = medsynth::scalar_extras_of(value);
  volatile std::size_t sink = extras.size();
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const medsynth::pickle::PickleLimits limits;  // the limits torch_archive.cpp uses
  std::size_t offset = 0;
  for (int i = 0; i < k_max_pickles && offset < bytes.size(); ++i) {
    const char* call = "unpickle";
    try {
      const medsynth::pickle::Unpickled u = medsynth::pickle::unpickle(bytes, offset, k_path, "data.pkl", limits);
      if (u.end() <= offset || u.end() > bytes.size()) {
        finding("unpickle at " + std::to_string(offset) + " ended at " + std::to_string(u.end()) + " (input of " +
                std::to_string(bytes.size()) + " bytes)");
      }
      offset = u.end();
      call = "Unpickled::value";
      std::set<std::string> loaded;
      const medsynth::PickleValue value = u.value([&](const medsynth::pickle::StorageRef& ref) -> at::Tensor {
        if (!loaded.insert(ref.key).second) finding("storage '" + ref.key + "' loaded twice in one value()");
        const auto element = static_cast<std::int64_t>(c10::elementSize(ref.dtype));
        if (ref.numel < 0 || ref.numel > k_max_storage_bytes / element)
          throw medsynth::DataError(k_path, "storage '" + ref.key + "' is larger than the fuzz input could hold");
        return at::zeros({ref.numel}, at::TensorOptions().dtype(ref.dtype));
      });
      volatile std::size_t sink = walk(value);
      (void)sink;
      call = "state_dict_of/scalar_extras_of";
      consume(value);
    } catch (const medsynth::Error&) {
      // Expected: the pickle was refused. A refused value() leaves `offset`
      // after its STOP, so the next pickle of the stream is still read.
      if (std::string_view(call) == "unpickle") break;
    } catch (const c10::Error&) {
      if (c10_is_finding()) medsynth::fuzz::unexpected_exception("pickle_fuzzer", call);
      if (std::string_view(call) == "unpickle") break;
    } catch (...) {
      medsynth::fuzz::unexpected_exception("pickle_fuzzer", call);
    }
  }
  return 0;
}

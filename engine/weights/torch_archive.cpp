// torch.save files: telling the two formats apart, reading each, and finding
// the weights in what they hold. The pickles inside go through the restricted
// machine of pickle_machine.cpp.
#include "weights/torch_archive.hpp"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <c10/util/Exception.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "weights/pickle_machine.hpp"

namespace medsynth {
namespace {

using pickle::StorageRef;

// The first sentence of a LibTorch message (the rest is advice and a C++ backtrace).
std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.substr(0, line.find(". "));
}

std::string file_start(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

// --- zip format (torch >= 1.6): <archive>/data.pkl, <archive>/data/<key>, <archive>/byteorder

void check_zip_byte_order(caffe2::serialize::PyTorchStreamReader& zip, const std::string& path) {
  if (!zip.hasRecord("byteorder")) return;  // written since torch 2.1; older files are little-endian
  auto [data, size] = zip.getRecord("byteorder");
  std::string order(static_cast<const char*>(data.get()), size);
  if (order != "little") throw DataError(path, "byte order '" + order.substr(0, 16) + "': only little-endian files are read");
}

at::Tensor load_zip_storage(caffe2::serialize::PyTorchStreamReader& zip, const StorageRef& ref, const std::string& path) {
  const std::string name = "data/" + ref.key;
  if (!zip.hasRecord(name)) throw DataError(path, "storage record '" + name + "' is missing");
  const std::size_t size = zip.getRecordSize(name);
  const auto element = static_cast<std::size_t>(c10::elementSize(ref.dtype));
  std::size_t expected = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(ref.numel), element, &expected) || expected != size)
    throw DataError(path, "storage record '" + name + "' holds " + std::to_string(size) + " bytes, expected " +
                              std::to_string(ref.numel) + " elements of " + std::to_string(element) + " bytes");
  at::Tensor t = at::empty({ref.numel}, at::TensorOptions().dtype(ref.dtype));
  if (size > 0) zip.getRecord(name, t.data_ptr(), size);
  return t;
}

PickleValue read_zip(const std::string& path) {
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> zip;
  try {
    zip = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
  } catch (const c10::Error& e) {
    throw DataError(path, "not a readable torch.save zip archive (truncated or damaged?): " +
                              first_line(e.what_without_backtrace()));
  }
  check_zip_byte_order(*zip, path);
  if (!zip->hasRecord("data.pkl")) throw DataError(path, "zip archive without a data.pkl record: not a torch.save file");
  if (zip->getRecordSize("data.pkl") > pickle::PickleLimits{}.max_bytes)
    throw DataError(path, "data.pkl is larger than the limit of " + std::to_string(pickle::PickleLimits{}.max_bytes) + " bytes");
  auto [data, size] = zip->getRecord("data.pkl");
  const std::string_view bytes(static_cast<const char*>(data.get()), size);
  const pickle::Unpickled root = pickle::unpickle(bytes, 0, path, "data.pkl");
  return root.value([&](const StorageRef& ref) { return load_zip_storage(*zip, ref, path); });
}

// --- legacy format (torch < 1.6): pickles of the magic number, the protocol
// version, sys_info, the object and the storage keys, then per storage key an
// int64 element count and the raw elements.

constexpr std::int64_t k_legacy_protocol = 1001;
// LONG1 of 10 bytes holding 0x1950a86a20f9469cfc6c (little-endian), then STOP.
constexpr unsigned char k_legacy_magic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e};

// Offset after the magic-number pickle, or 0 when the file does not start with one.
std::size_t skip_legacy_magic(std::string_view bytes) {
  std::size_t pos = 2;  // PROTO n
  if (bytes.size() < pos || static_cast<unsigned char>(bytes[0]) != 0x80) return 0;
  if (bytes.size() > pos && static_cast<unsigned char>(bytes[pos]) == 0x95) pos += 9;  // FRAME (protocol 4+)
  if (bytes.size() < pos + sizeof k_legacy_magic) return 0;
  if (std::memcmp(bytes.data() + pos, k_legacy_magic, sizeof k_legacy_magic) != 0) return 0;
  return pos + sizeof k_legacy_magic;
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path, "read error");
  return bytes;
}

PickleValue no_storages(const pickle::Unpickled& u, const std::string& path) {
  return u.value([&](const StorageRef& ref) -> at::Tensor {
    throw DataError(path, "storage '" + ref.key + "' in a header pickle of the legacy format");
  });
}

void check_legacy_header(std::string_view bytes, std::size_t& pos, const std::string& path) {
  const auto version = pickle::unpickle(bytes, pos, path, "");
  const PickleValue number_value = no_storages(version, path);
  const auto* number = number_value.get_if<std::int64_t>();
  if (!number || *number != k_legacy_protocol) throw DataError(path, "legacy torch file of an unknown protocol version");
  const auto sys_info = pickle::unpickle(bytes, version.end(), path, "");
  const PickleValue info = no_storages(sys_info, path);
  const PickleValue* little = info.find("little_endian");
  if (!little || !little->get_if<bool>()) throw DataError(path, "legacy torch file without sys_info");
  if (!*little->get_if<bool>()) throw DataError(path, "big-endian legacy file: only little-endian files are read");
  pos = sys_info.end();
}

std::vector<std::string> legacy_storage_keys(std::string_view bytes, std::size_t& pos, const std::string& path) {
  const auto keys = pickle::unpickle(bytes, pos, path, "");
  pos = keys.end();
  const PickleValue list = no_storages(keys, path);
  std::vector<std::string> out;
  if (const auto* l = list.get_if<PickleValue::List>())
    for (const PickleValue& k : l->items)
      if (const auto* s = k.get_if<std::string>()) out.push_back(*s);
  if (!list.get_if<PickleValue::List>() || out.size() != list.get_if<PickleValue::List>()->items.size())
    throw DataError(path, "legacy storage key list is not a list of strings");
  return out;
}

at::Tensor read_legacy_storage(std::string_view bytes, std::size_t& pos, const StorageRef& ref, const std::string& path) {
  auto truncated = [&] { return DataError(path, "truncated at byte " + std::to_string(bytes.size()) + " (storage '" + ref.key + "')"); };
  if (bytes.size() - pos < 8) throw truncated();
  std::int64_t count = 0;
  std::memcpy(&count, bytes.data() + pos, 8);  // little-endian: checked in sys_info
  pos += 8;
  if (count != ref.numel)
    throw DataError(path, "storage '" + ref.key + "' holds " + std::to_string(count) + " elements, its tensors name " +
                              std::to_string(ref.numel));
  const auto element = static_cast<std::size_t>(c10::elementSize(ref.dtype));
  if (static_cast<std::uint64_t>(count) > (bytes.size() - pos) / element) throw truncated();
  at::Tensor t = at::empty({count}, at::TensorOptions().dtype(ref.dtype));
  std::memcpy(t.data_ptr(), bytes.data() + pos, static_cast<std::size_t>(count) * element);
  pos += static_cast<std::size_t>(count) * element;
  return t;
}

PickleValue read_legacy(const std::string& path) {
  const std::string bytes = read_whole(path);
  std::size_t pos = skip_legacy_magic(bytes);
  if (pos == 0) throw DataError(path, "not a torch.save file (a pickle without torch's magic number)");
  check_legacy_header(bytes, pos, path);
  const auto object = pickle::unpickle(bytes, pos, path, "");
  pos = object.end();
  std::map<std::string, const StorageRef*> refs;
  for (const StorageRef& ref : object.storages()) refs[ref.key] = &ref;
  std::map<std::string, at::Tensor> storages;
  for (const std::string& key : legacy_storage_keys(bytes, pos, path)) {
    auto ref = refs.find(key);
    if (ref == refs.end() || storages.count(key)) throw DataError(path, "legacy storage key '" + key + "' is unknown or repeated");
    storages[key] = read_legacy_storage(bytes, pos, *ref->second, path);
  }
  return object.value([&](const StorageRef& ref) {
    auto found = storages.find(ref.key);
    if (found == storages.end()) throw DataError(path, "storage '" + ref.key + "' has no data");
    return found->second;
  });
}

PickleValue read_either(const std::string& path) {
  const std::string start = file_start(path, 4);
  if (start == std::string("PK\x03\x04", 4)) return read_zip(path);
  if (!start.empty() && static_cast<unsigned char>(start[0]) == 0x80) return read_legacy(path);
  throw DataError(path, "not a torch.save file (neither a zip archive nor a legacy torch pickle)");
}

}  // namespace

PickleValue read_torch_file(const std::string& path) {
  try {
    return read_either(path);
  } catch (const c10::Error& e) {
    throw DataError(path, first_line(e.what_without_backtrace()));
  }
}

}  // namespace medsynth

#include "state/tensor_file.hpp"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "core/error.hpp"

namespace medsynth {
namespace {

std::function<void(std::size_t)>& write_hook() {
  static std::function<void(std::size_t)> hook;
  return hook;
}

struct DtypeName {
  at::ScalarType type;
  const char* name;
};
constexpr DtypeName k_dtypes[] = {
    {at::kFloat, "F32"},   {at::kDouble, "F64"}, {at::kHalf, "F16"}, {at::kBFloat16, "BF16"},
    {at::kLong, "I64"},    {at::kInt, "I32"},    {at::kShort, "I16"}, {at::kChar, "I8"},
    {at::kByte, "U8"},     {at::kBool, "BOOL"},
};

const char* dtype_name(at::ScalarType t) {
  for (const auto& d : k_dtypes)
    if (d.type == t) return d.name;
  throw RuntimeError(std::string("tensor dtype not storable: ") + c10::toString(t));
}

bool dtype_from_name(const std::string& name, at::ScalarType& out) {
  for (const auto& d : k_dtypes)
    if (name == d.name) {
      out = d.type;
      return true;
    }
  return false;
}

void write_all(int fd, const char* data, std::size_t size, std::size_t& written, const std::string& path) {
  constexpr std::size_t chunk = 1 << 20;
  std::size_t done = 0;
  while (done < size) {
    std::size_t n = std::min(chunk, size - done);
    ssize_t r = ::write(fd, data + done, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_write_error("cannot write " + path + ": " + std::strerror(errno), errno);
    }
    done += static_cast<std::size_t>(r);
    written += static_cast<std::size_t>(r);
    if (write_hook()) write_hook()(written);
  }
}

void fsync_directory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

void set_tensor_file_write_hook(std::function<void(std::size_t)> hook) { write_hook() = std::move(hook); }

void write_tensor_file(const std::string& path, const TensorFile& file) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<at::Tensor> ordered;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : file.tensors) {
    at::Tensor t = tensor.detach().to(at::kCPU).contiguous();
    std::uint64_t bytes = static_cast<std::uint64_t>(t.numel()) * t.element_size();
    header[name] = {{"dtype", dtype_name(t.scalar_type())}, {"shape", t.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    ordered.push_back(t);
  }
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::string text = header.dump();
  // Pad the header with spaces to an 8-byte boundary, as the format recommends.
  while ((text.size() % 8) != 0) text.push_back(' ');
  std::uint64_t header_len = text.size();
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>((header_len >> (8 * i)) & 0xff);

  std::filesystem::path final_path(path);
  std::filesystem::path dir = final_path.parent_path().empty() ? std::filesystem::path(".") : final_path.parent_path();
  std::random_device rd;
  std::filesystem::path tmp = dir / ("." + final_path.filename().string() + ".tmp-" + std::to_string(rd()));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw RuntimeError("cannot create " + tmp.string() + ": " + std::strerror(errno));
  try {
    // Errors name the checkpoint the user knows, not the temporary file,
    // which is removed below.
    std::size_t written = 0;
    write_all(fd, reinterpret_cast<const char*>(len_bytes), 8, written, path);
    write_all(fd, text.data(), text.size(), written, path);
    for (const auto& t : ordered)
      write_all(fd, static_cast<const char*>(t.data_ptr()), static_cast<std::size_t>(t.numel()) * t.element_size(), written, path);
    if (::fsync(fd) != 0) throw_write_error("cannot fsync " + path + ": " + std::strerror(errno), errno);
    ::close(fd);
    fd = -1;
    std::error_code ec;
    std::filesystem::rename(tmp, final_path, ec);
    if (ec) throw RuntimeError("cannot rename " + tmp.string() + " to " + path + ": " + ec.message());
    fsync_directory(dir);
  } catch (...) {
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

TensorFile read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot open checkpoint (missing or unreadable)");
  in.seekg(0, std::ios::end);
  const std::uint64_t file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  if (file_size < 8) throw DataError(path, "not a tensor file: shorter than its 8-byte header length");
  unsigned char len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  std::uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= static_cast<std::uint64_t>(len_bytes[i]) << (8 * i);
  if (header_len > 100'000'000 || header_len > file_size - 8)
    throw DataError(path, "not a tensor file: header length " + std::to_string(header_len) + " does not fit the file");
  std::string text(header_len, '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_len));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw DataError(path, std::string("not a tensor file: header is not JSON (") + e.what() + ")");
  }
  if (!header.is_object()) throw DataError(path, "not a tensor file: header is not a JSON object");
  const std::uint64_t data_start = 8 + header_len;
  const std::uint64_t data_size = file_size - data_start;

  TensorFile out;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throw DataError(path, "__metadata__ is not an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) throw DataError(path, "__metadata__." + m.key() + " is not a string");
        out.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    const auto& e = *it;
    at::ScalarType type;
    if (!e.is_object() || !e.contains("dtype") || !e["dtype"].is_string() || !dtype_from_name(e["dtype"].get<std::string>(), type))
      throw DataError(path, "tensor '" + it.key() + "': missing or unknown dtype");
    if (!e.contains("shape") || !e["shape"].is_array() || !e.contains("data_offsets") || !e["data_offsets"].is_array() ||
        e["data_offsets"].size() != 2)
      throw DataError(path, "tensor '" + it.key() + "': malformed shape or data_offsets");
    std::vector<int64_t> shape;
    std::uint64_t numel = 1, expected = 0;
    bool wraps = false;
    for (const auto& d : e["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) throw DataError(path, "tensor '" + it.key() + "': bad shape");
      shape.push_back(d.get<int64_t>());
      // A product that wraps around 64 bits can land on the stored byte count
      // (3 x 6148914691236517206 = 2 mod 2^64): check every multiplication.
      wraps = wraps || __builtin_mul_overflow(numel, static_cast<std::uint64_t>(shape.back()), &numel);
    }
    wraps = wraps || __builtin_mul_overflow(numel, static_cast<std::uint64_t>(c10::elementSize(type)), &expected) ||
            expected > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (wraps) {
      std::string text;
      for (const auto n : shape) text += (text.empty() ? "[" : ", ") + std::to_string(n);
      throw DataError(path, "tensor '" + it.key() + "': shape " + text + "] has more bytes than 64 bits count");
    }
    std::uint64_t begin = e["data_offsets"][0].get<std::uint64_t>();
    std::uint64_t end = e["data_offsets"][1].get<std::uint64_t>();
    if (begin > end || end > data_size)
      throw DataError(path, "tensor '" + it.key() + "': data range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") lies outside the file's " + std::to_string(data_size) + " data bytes (truncated?)");
    if (end - begin != expected)
      throw DataError(path, "tensor '" + it.key() + "': " + std::to_string(end - begin) + " bytes for a shape needing " +
                                std::to_string(expected));
    ranges.emplace_back(begin, end);
    at::Tensor t = at::empty(shape, at::TensorOptions().dtype(type));
    in.seekg(static_cast<std::streamoff>(data_start + begin));
    in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(expected));
    if (!in) throw DataError(path, "tensor '" + it.key() + "': truncated data");
    out.tensors.emplace(it.key(), std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) throw DataError(path, "tensor data ranges overlap");
  return out;
}

}  // namespace medsynth

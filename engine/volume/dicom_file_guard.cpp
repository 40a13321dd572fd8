// check_dicom_file: a bounds-checked walk over a DICOM Part 10 file. Values
// are read only for the few attributes the series reader needs; everything
// else is skipped by length, so the walk costs a few reads per element and
// no memory proportional to the file.
#include "volume/dicom_file_guard.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace medsynth {
namespace {

constexpr std::uint32_t k_undefined_length = 0xFFFFFFFFu;
constexpr int k_max_depth = 32;
constexpr std::size_t k_window = 64 * 1024;

std::string tag_text(std::uint16_t group, std::uint16_t element) {
  char text[16];
  std::snprintf(text, sizeof text, "(%04X,%04X)", group, element);
  return text;
}

std::string printable(const char* vr) {
  std::string out;
  for (int i = 0; i < 2; ++i) {
    const auto c = static_cast<unsigned char>(vr[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// pread through a 64 KiB window: element headers are tiny and mostly close together.
class FileWindow {
 public:
  explicit FileWindow(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    if (end < 0) throw DataError(path, std::string("cannot seek: ") + std::strerror(errno));
    size_ = static_cast<std::uint64_t>(end);
  }
  ~FileWindow() { ::close(fd_); }
  FileWindow(const FileWindow&) = delete;
  FileWindow& operator=(const FileWindow&) = delete;

  std::uint64_t size() const { return size_; }

  // Copies n bytes at offset; false if they are not all inside the file.
  bool get(std::uint64_t offset, void* out, std::size_t n) {
    if (offset > size_ || n > size_ - offset) return false;
    if (n > k_window) return pread_all(offset, out, n);
    if (offset < start_ || offset + n > start_ + buffer_.size()) {
      buffer_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(k_window, size_ - offset)));
      if (!pread_all(offset, buffer_.data(), buffer_.size())) return false;
      start_ = offset;
    }
    std::memcpy(out, buffer_.data() + (offset - start_), n);
    return true;
  }

 private:
  bool pread_all(std::uint64_t offset, void* out, std::size_t n) {
    auto* dst = static_cast<unsigned char*>(out);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, dst, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw DataError(path_, std::string("read error: ") + std::strerror(errno));
      if (got == 0) return false;
      dst += got;
      offset += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }

  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::vector<unsigned char> buffer_;
  std::uint64_t start_ = 0;
};

struct Element {
  std::uint16_t group = 0;
  std::uint16_t element = 0;
  char vr[3] = {0, 0, 0};  // empty for implicit VR and for item tags
  std::uint32_t length = 0;
  std::uint64_t value_pos = 0;
  bool is(std::uint16_t g, std::uint16_t e) const { return group == g && element == e; }
  bool vr_is(const char* v) const { return vr[0] == v[0] && vr[1] == v[1]; }
};

class Walker {
 public:
  Walker(const std::string& path, const VolumeReadOptions& options) : file_(path), options_(options) {
    info_.path = path;
  }

  std::optional<DicomFileInfo> run();

 private:
  [[noreturn]] void fail(const std::string& reason) const { throw DataError(info_.path, "broken DICOM file: " + reason); }
  std::uint16_t u16(const unsigned char* p, bool big) const {
    return big ? static_cast<std::uint16_t>(p[0] << 8 | p[1]) : static_cast<std::uint16_t>(p[1] << 8 | p[0]);
  }
  std::uint32_t u32(const unsigned char* p, bool big) const {
    return big ? (std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3])
               : (std::uint32_t{p[3]} << 24 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[1]} << 8 | p[0]);
  }

  Element read_element(std::uint64_t pos, std::uint64_t end, bool explicit_vr, bool big);
  void check_fits(const Element& e, std::uint64_t end, const char* where) const;
  void read_meta_header(std::uint64_t& pos);
  std::uint64_t walk_elements(std::uint64_t pos, std::uint64_t end, bool until_item_delimiter, int depth);
  std::uint64_t walk_sequence(std::uint64_t pos, std::uint64_t end, bool defined, int depth);
  std::uint64_t walk_fragments(std::uint64_t pos, std::uint64_t end);
  bool looks_like_sequence(const Element& e);
  std::string read_string(const Element& e);
  void note_value(const Element& e);
  void check_image();

  FileWindow file_;
  VolumeReadOptions options_;
  DicomFileInfo info_;
  bool explicit_ = true;
  bool big_ = false;
  std::uint64_t pixel_length_ = 0;
  std::optional<std::string> pixel_spacing_;  // (0028,0030) as written, checked with the image
};

Element Walker::read_element(std::uint64_t pos, std::uint64_t end, bool explicit_vr, bool big) {
  unsigned char h[12];
  auto need = [&](std::size_t n) {
    if (pos + n > end || !file_.get(pos, h, n))
      fail("the data ends inside an element header at offset " + std::to_string(pos));
  };
  need(8);
  Element e;
  e.group = u16(h, big);
  e.element = u16(h + 2, big);
  if (e.group == 0xFFFE || !explicit_vr) {  // items and delimiters never carry a VR
    e.length = u32(h + 4, big);
    e.value_pos = pos + 8;
    return e;
  }
  e.vr[0] = static_cast<char>(h[4]);
  e.vr[1] = static_cast<char>(h[5]);
  // GDCM asserts (aborting the process) on a VR it does not know.
  static const char* known_vrs[] = {"AE", "AS", "AT", "CS", "DA", "DS", "DT", "FD", "FL", "IS", "LO",
                                    "LT", "OB", "OD", "OF", "OL", "OV", "OW", "PN", "SH", "SL", "SQ",
                                    "SS", "ST", "SV", "TM", "UC", "UI", "UL", "UN", "UR", "US", "UT", "UV"};
  if (std::none_of(std::begin(known_vrs), std::end(known_vrs), [&](const char* v) { return e.vr_is(v); }))
    fail("element " + tag_text(e.group, e.element) + " at offset " + std::to_string(pos) + " has an unknown VR \"" +
         printable(e.vr) + "\"");
  static const char* long_vrs[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV"};
  const bool long_form = std::any_of(std::begin(long_vrs), std::end(long_vrs), [&](const char* v) { return e.vr_is(v); });
  if (long_form) {
    need(12);
    e.length = u32(h + 8, big);
    e.value_pos = pos + 12;
  } else {
    e.length = u16(h + 6, big);
    e.value_pos = pos + 8;
  }
  return e;
}

void Walker::check_fits(const Element& e, std::uint64_t end, const char* where) const {
  if (e.value_pos + e.length > end)
    fail("element " + tag_text(e.group, e.element) + " declares " + std::to_string(e.length) + " bytes, past the end of " +
         where + " (" + std::to_string(end > e.value_pos ? end - e.value_pos : 0) + " bytes left)");
}

void Walker::read_meta_header(std::uint64_t& pos) {
  // The meta group (0002,xxxx) is always explicit VR little endian.
  while (true) {
    unsigned char g[2];
    if (!file_.get(pos, g, 2)) break;
    if (u16(g, false) != 0x0002) break;
    const Element e = read_element(pos, file_.size(), true, false);
    if (e.length == k_undefined_length) fail("meta element " + tag_text(e.group, e.element) + " has an undefined length");
    check_fits(e, file_.size(), "the file");
    if (e.is(0x0002, 0x0010)) info_.transfer_syntax = read_string(e);
    pos = e.value_pos + e.length;
  }
  if (info_.transfer_syntax.empty()) fail("no transfer syntax (0002,0010) in its meta header");
  if (info_.transfer_syntax == "1.2.840.10008.1.2.1.99")
    fail("the deflated transfer syntax is not supported");
  explicit_ = info_.transfer_syntax != "1.2.840.10008.1.2";
  big_ = info_.transfer_syntax == "1.2.840.10008.1.2.2";
}

// Implicit VR gives no type: a defined-length value that starts with an item
// tag and a plausible item length is walked as a sequence, as GDCM would.
// Pixel and overlay data are never sequences, whatever their first bytes are.
bool Walker::looks_like_sequence(const Element& e) {
  if (e.length < 8 || e.group == 0x7FE0 || (e.group >= 0x6000 && e.group <= 0x60FF && e.element == 0x3000)) return false;
  unsigned char h[8];
  if (!file_.get(e.value_pos, h, 8)) return false;
  if (u16(h, big_) != 0xFFFE || u16(h + 2, big_) != 0xE000) return false;
  const std::uint32_t item = u32(h + 4, big_);
  return item == k_undefined_length || item <= e.length - 8;
}

std::uint64_t Walker::walk_elements(std::uint64_t pos, std::uint64_t end, bool until_item_delimiter, int depth) {
  const bool top = depth == 0;
  const char* where = top ? "the file" : "its item";
  while (pos < end) {
    const Element e = read_element(pos, end, explicit_, big_);
    if (e.group == 0xFFFE) {
      if (e.element == 0xE00D && until_item_delimiter) return e.value_pos;
      fail("unexpected item tag " + tag_text(e.group, e.element) + " at offset " + std::to_string(pos));
    }
    if (e.length == k_undefined_length) {
      if (top && e.is(0x7FE0, 0x0010)) {
        info_.has_pixels = true;
        info_.encapsulated = true;
        pos = walk_fragments(e.value_pos, end);
      } else if (!explicit_ || e.vr_is("SQ")) {
        pos = walk_sequence(e.value_pos, end, false, depth + 1);
      } else if (e.vr_is("UN")) {
        // An undefined-length UN holds a sequence encoded implicit VR little
        // endian, whatever the file's transfer syntax.
        const bool saved_explicit = explicit_, saved_big = big_;
        explicit_ = false;
        big_ = false;
        pos = walk_sequence(e.value_pos, end, false, depth + 1);
        explicit_ = saved_explicit;
        big_ = saved_big;
      } else {
        fail("element " + tag_text(e.group, e.element) + " (VR " + e.vr + ") has an undefined length");
      }
      continue;
    }
    check_fits(e, end, where);
    if ((explicit_ && e.vr_is("SQ")) || (!explicit_ && looks_like_sequence(e))) {
      walk_sequence(e.value_pos, e.value_pos + e.length, true, depth + 1);
    } else if (top) {
      note_value(e);
    }
    pos = e.value_pos + e.length;
  }
  if (until_item_delimiter) fail("an item of undefined length has no delimiter before the end of the file");
  return pos;
}

std::uint64_t Walker::walk_sequence(std::uint64_t pos, std::uint64_t end, bool defined, int depth) {
  if (depth > k_max_depth) fail("sequences nested deeper than " + std::to_string(k_max_depth));
  while (!defined || pos < end) {
    const Element item = read_element(pos, end, explicit_, big_);
    if (item.is(0xFFFE, 0xE0DD)) return item.value_pos;  // sequence delimiter
    if (!item.is(0xFFFE, 0xE000))
      fail("a sequence holds element " + tag_text(item.group, item.element) + " at offset " + std::to_string(pos) +
           " where an item was expected");
    if (item.length == k_undefined_length) {
      pos = walk_elements(item.value_pos, end, true, depth);
    } else {
      check_fits(item, end, "its sequence");
      walk_elements(item.value_pos, item.value_pos + item.length, false, depth);
      pos = item.value_pos + item.length;
    }
  }
  return pos;
}

std::uint64_t Walker::walk_fragments(std::uint64_t pos, std::uint64_t end) {
  while (true) {
    const Element item = read_element(pos, end, false, big_);
    if (item.is(0xFFFE, 0xE0DD)) return item.value_pos;
    if (!item.is(0xFFFE, 0xE000) || item.length == k_undefined_length)
      fail("encapsulated pixel data holds a malformed fragment at offset " + std::to_string(pos));
    check_fits(item, end, "the file");
    pixel_length_ += item.length;
    pos = item.value_pos + item.length;
  }
}

std::string Walker::read_string(const Element& e) {
  std::string s(std::min<std::uint32_t>(e.length, 1024), '\0');
  if (!file_.get(e.value_pos, s.data(), s.size())) fail("cannot read element " + tag_text(e.group, e.element));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

template <std::size_t N>
std::optional<std::array<double, N>> parse_numbers(const std::string& text) {
  std::array<double, N> out{};
  std::string copy = text;
  std::replace(copy.begin(), copy.end(), '\\', ' ');
  std::istringstream in(copy);
  for (auto& v : out)
    if (!(in >> v)) return std::nullopt;
  return out;
}

void Walker::note_value(const Element& e) {
  auto us = [&]() -> std::uint32_t {
    unsigned char b[2];
    if (e.length < 2 || !file_.get(e.value_pos, b, 2)) fail("element " + tag_text(e.group, e.element) + " is too short");
    return u16(b, big_);
  };
  if (e.is(0x0028, 0x0010)) info_.rows = us();
  else if (e.is(0x0028, 0x0011)) info_.columns = us();
  else if (e.is(0x0028, 0x0100)) info_.bits_allocated = us();
  else if (e.is(0x0028, 0x0002)) info_.samples_per_pixel = us();
  else if (e.is(0x0028, 0x0004))
    info_.photometric = read_string(e);
  else if (e.is(0x0028, 0x0030))
    pixel_spacing_ = read_string(e);
  else if (e.is(0x0028, 0x0008)) {
    const std::string text = read_string(e);
    long long frames = 0;
    std::istringstream in(text);
    if (!(in >> frames) || frames < 1) fail("NumberOfFrames \"" + text + "\" is not a positive number");
    info_.frames = static_cast<std::uint64_t>(frames);
  } else if (e.is(0x0020, 0x000E)) info_.series_uid = read_string(e);
  else if (e.is(0x0008, 0x0060))
    info_.modality = read_string(e);
  else if (e.is(0x0020, 0x0032)) info_.position = parse_numbers<3>(read_string(e));
  else if (e.is(0x0020, 0x0037)) info_.orientation = parse_numbers<6>(read_string(e));
  else if (e.is(0x0020, 0x0013)) {
    long long n = 0;
    std::istringstream in(read_string(e));
    if (in >> n) info_.instance_number = n;
  } else if (e.is(0x7FE0, 0x0010)) {
    info_.has_pixels = true;
    pixel_length_ = e.length;
  }
}

void Walker::check_image() {
  if (info_.rows == 0 || info_.columns == 0)
    fail("has pixel data but Rows x Columns is " + std::to_string(info_.rows) + "x" + std::to_string(info_.columns));
  const auto bits = info_.bits_allocated;
  // A binary segmentation (DICOM-SEG) packs its frames one bit per pixel; the
  // series reader skips it, write_dicom_seg's reader needs it to pass.
  const bool binary_seg = bits == 1 && info_.modality == "SEG";
  if (bits != 8 && bits != 16 && bits != 32 && !binary_seg)
    fail("BitsAllocated " + std::to_string(bits) + " is not supported (8, 16 or 32; 1 in a segmentation)");
  if (info_.samples_per_pixel < 1 || info_.samples_per_pixel > 4)
    fail("SamplesPerPixel " + std::to_string(info_.samples_per_pixel) + " is not 1..4");
  // CT and MR are grey values. A PALETTE COLOR image without its lookup
  // table hits an assertion in Debian's GDCM (SIGABRT, issue 50 item 2), and
  // colour images are no scanner's HU or MR intensities: refused before GDCM
  // sees the file. Absent: read as grey, as GDCM does.
  if (!info_.photometric.empty() && info_.photometric != "MONOCHROME1" && info_.photometric != "MONOCHROME2")
    fail("PhotometricInterpretation \"" + info_.photometric +
         "\" is not supported: medsynth reads grey-value CT and MR images (MONOCHROME1 or MONOCHROME2)");
  // GDCM reads a PixelSpacing of 0 or -1 as 1 mm (with a warning on stderr)
  // and passes infinity through: each would give a volume of the wrong size
  // with nothing said (issue 50 item 3). Absent, it is 1 mm as GDCM reads it
  // (a secondary capture may carry none).
  if (pixel_spacing_) {
    const auto spacing = parse_numbers<2>(*pixel_spacing_);
    const bool positive =
        spacing && std::all_of(spacing->begin(), spacing->end(), [](double s) { return std::isfinite(s) && s > 0; });
    if (!positive)
      throw DataError(info_.path, "PixelSpacing \"" + *pixel_spacing_ +
                                      "\" is not two finite numbers > 0 (mm between rows and between columns)");
  }
  std::uint64_t voxels = 0;
  std::uint64_t bytes = 0;
  // A SEG's frames are segments x slices of one bit each: a 5-class map of a
  // 512 x 512 x 1024 CT is 1.3 Gi frame pixels in 168 MB, which the voxel cap
  // (a volume's floats) refused, so the folder export-dicom --label wrote
  // could not be read back. Its bound is the stored bits, the byte cap x 8.
  const std::uint64_t bit_cap = options_.max_bytes > UINT64_MAX / 8 ? UINT64_MAX : options_.max_bytes * 8;
  const std::uint64_t cap = binary_seg ? bit_cap : options_.max_voxels;
  if (__builtin_mul_overflow(std::uint64_t{info_.rows} * info_.columns, info_.frames, &voxels) || voxels > cap)
    throw DataError(info_.path, "DICOM image declares " + std::to_string(info_.rows) + "x" +
                                    std::to_string(info_.columns) + "x" + std::to_string(info_.frames) +
                                    (binary_seg ? " one-bit frame pixels" : " voxels") + ", over the cap of " +
                                    std::to_string(cap) + (binary_seg ? " (8 x the byte cap)" : ""));
  if (info_.encapsulated) return;  // compressed: the decoder checks the length
  if (binary_seg)
    bytes = (voxels + 7) / 8;
  else if (__builtin_mul_overflow(voxels, std::uint64_t{info_.samples_per_pixel} * (bits / 8), &bytes))
    fail("pixel data size overflows");
  if (pixel_length_ < bytes)
    fail("truncated pixel data: holds " + std::to_string(pixel_length_) + " of " + std::to_string(bytes) + " bytes");
}

std::optional<DicomFileInfo> Walker::run() {
  char magic[4];
  if (!file_.get(128, magic, 4) || std::memcmp(magic, "DICM", 4) != 0) return std::nullopt;
  std::uint64_t pos = 132;
  read_meta_header(pos);
  walk_elements(pos, file_.size(), false, 0);
  if (info_.has_pixels) check_image();
  return info_;
}

}  // namespace

std::optional<DicomFileInfo> check_dicom_file(const std::string& path, const VolumeReadOptions& options) {
  return Walker(path, options).run();
}

}  // namespace medsynth

// SHA-256 of a file's bytes, for the files a run or a generated volume names
// (provenance, the perceptual network): a maintained digest (OpenSSL's
// libcrypto, Debian's libssl3), not a hand-written one, and not FNV-1a,
// which anyone can collide (issue 37). Header-only like the rest of core/,
// so the provenance library and the trainer share it without one including
// the other's folder; medsynth_core links libcrypto for its users.
#pragma once

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

// 64 lowercase hex digits. DataError naming the file when it cannot be read.
inline std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot read");
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw RuntimeError("OpenSSL: cannot start SHA-256");
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0 && EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(in.gcount())) != 1)
      throw RuntimeError("OpenSSL: SHA-256 update failed");
  }
  if (in.bad()) throw DataError(path, "read error");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) throw RuntimeError("OpenSSL: SHA-256 final failed");
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += digits[digest[i] >> 4];
    hex += digits[digest[i] & 15];
  }
  return hex;
}

}  // namespace medsynth

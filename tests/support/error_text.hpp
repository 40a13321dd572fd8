// The message of what `f` throws ("" when it throws nothing): for tests that
// check that a refusal names the file, the entry and the field.
#pragma once

#include <exception>
#include <functional>
#include <string>

namespace medsynth::test {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace medsynth::test

// Free-form extra fields of an event (run_started's "extra", artifact's
// "extra", EventWriter::emit), as a small value type
// so that the public EventWriter header does not expose nlohmann::json to
// every trainer and CLI translation unit. Converted to JSON in event_writer.cpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace medsynth {

// One JSON scalar or flat array. Non-finite doubles are written as null.
class EventValue {
 public:
  using Storage = std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string,
                               std::vector<std::int64_t>, std::vector<double>, std::vector<std::string>>;

  EventValue() : value_(nullptr) {}
  EventValue(std::nullptr_t) : value_(nullptr) {}
  EventValue(bool v) : value_(v) {}
  // Any integer type (int, long, std::size_t, ...) without narrowing surprises.
  template <std::integral T>
  requires(!std::same_as<T, bool>) EventValue(T v) {
    if constexpr (std::is_signed_v<T>)
      value_ = static_cast<std::int64_t>(v);
    else
      value_ = static_cast<std::uint64_t>(v);
  }
  EventValue(float v) : value_(static_cast<double>(v)) {}
  EventValue(double v) : value_(v) {}
  EventValue(const char* v) : value_(std::string(v)) {}
  EventValue(std::string_view v) : value_(std::string(v)) {}
  EventValue(std::string v) : value_(std::move(v)) {}
  EventValue(std::vector<std::int64_t> v) : value_(std::move(v)) {}
  EventValue(std::vector<double> v) : value_(std::move(v)) {}
  EventValue(std::vector<std::string> v) : value_(std::move(v)) {}

  const Storage& storage() const noexcept { return value_; }

 private:
  Storage value_;
};

// Ordered: fields appear in the JSON line in this order.
using EventFields = std::vector<std::pair<std::string, EventValue>>;

}  // namespace medsynth

#include "events/time_format.hpp"

#include <cstdio>
#include <ctime>

namespace medsynth {
namespace {

std::string format(std::chrono::system_clock::time_point t, char separator, const char* suffix) {
  using namespace std::chrono;
  // floor, not truncation: times before 1970 would otherwise get a negative millisecond part.
  const auto ms_total = time_point_cast<milliseconds>(t).time_since_epoch().count();
  auto seconds = ms_total / 1000;
  auto millis = ms_total % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  const std::time_t tt = static_cast<std::time_t>(seconds);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d%c%02d:%02d:%02d.%03d%s", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, separator, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis), suffix);
  return buf;
}

}  // namespace

std::string format_iso8601_utc_ms(std::chrono::system_clock::time_point t) { return format(t, 'T', "Z"); }

std::string format_log_time_utc_ms(std::chrono::system_clock::time_point t) { return format(t, ' ', ""); }

}  // namespace medsynth

// Timestamps of the event stream and the run logs. Both are UTC so that lines
// from ranks on different hosts (and time zones) sort and compare directly.
// Called by event_writer.cpp and run_logger.cpp.
#pragma once

#include <chrono>
#include <string>

namespace medsynth {

// "2026-11-22T05:31:02.123Z" (ISO-8601, UTC, milliseconds): the events' "time".
std::string format_iso8601_utc_ms(std::chrono::system_clock::time_point t);

// "2026-11-22 05:31:02.123" (UTC): the start of every log line.
std::string format_log_time_utc_ms(std::chrono::system_clock::time_point t);

}  // namespace medsynth

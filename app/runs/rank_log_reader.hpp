// Turns the bytes of a logs/rank{R}.log file into RunModel log lines. The
// engine's RunLogger writes "2026-11-22 05:31:02.123 [rank 0] INFO message"
// (UTC, docs/events.md); a line in another shape is kept as a continuation of
// the previous one (level ""). Used by EventFileTail and LocalLauncher, which
// follow the rank logs because the event stream only repeats warnings and
// errors. Partial lines are buffered; lines longer than max_line_bytes are cut.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <optional>

#include "app/runs/run_model.hpp"

namespace medsynth::app {

// One parsed line, or nothing when `text` is not in the RunLogger's shape.
std::optional<LogLine> parse_rank_log_line(QStringView text);

class RankLogReader {
 public:
  RankLogReader(RunModel* model, int rank, qsizetype max_line_bytes = 64 * 1024);

  void feed(QByteArrayView chunk);
  void finish();  // a trailing partial line is applied (logs are for people)
  void reset();

 private:
  void handle_line(QByteArrayView line);

  RunModel* model_;
  int rank_;
  qsizetype max_line_bytes_;
  QByteArray partial_;
  bool skipping_ = false;
};

}  // namespace medsynth::app

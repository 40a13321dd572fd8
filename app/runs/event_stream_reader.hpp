// Turns the bytes of an engine event stream (docs/events.md: one JSON object per
// line) into RunModel updates. Used by LocalLauncher (the engine's stdout), by
// EventFileTail (events.jsonl as it grows) and by RunStore (whole files).
//
// It survives anything (RELIABILITY 26): chunks split anywhere, invalid JSON,
// invalid UTF-8, unknown types, missing or wrong-typed fields, a `v` newer than
// ours, and huge lines. A line longer than max_line_bytes is skipped without
// being buffered (memory stays bounded by the cap). Each problem is counted in
// the model's ReaderStats; the good events around it are applied.
//
// JSON is parsed with QJsonDocument: it is in QtCore (no extra dependency in
// app/), reports errors as values instead of exceptions (garbage is the normal
// case on this stream), and yields the QStrings the model stores. Measured in
// tests/app/bench_event_reader.cpp.
//
// Not thread-safe: one reader per stream, used on its model's thread.
#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include "app/runs/run_model.hpp"

class QJsonObject;

namespace medsynth::app {

struct EventStreamReaderOptions {
  // A line longer than this is skipped (counted as oversized). The engine's
  // largest events are a few kB; 16 MiB leaves room for a huge `extra`.
  qsizetype max_line_bytes = 16 * 1024 * 1024;
};

class EventStreamReader {
 public:
  // The schema version this console understands.
  static constexpr int k_known_version = 1;  // event_schema::k_version of the engine it was built with

  explicit EventStreamReader(RunModel* model, EventStreamReaderOptions options = {});

  // Any split is fine: a partial last line is kept until its newline arrives.
  void feed(QByteArrayView chunk);
  // The stream ended: a trailing partial line is counted (lines, invalid_json), not applied.
  void finish();
  // Forget the buffered partial line and the counters (the followed file was replaced).
  void reset();

  const ReaderStats& stats() const { return stats_; }
  // Bytes held for an incomplete line (bounded by max_line_bytes).
  qsizetype buffered_bytes() const { return partial_.size(); }

 private:
  void handle_line(QByteArrayView line);
  void apply(const QJsonObject& event);
  bool apply_metric(const QJsonObject& event);
  bool apply_progress(const QJsonObject& event);
  bool apply_run_started(const QJsonObject& event);
  bool apply_log(const QJsonObject& event);
  bool apply_checkpoint(const QJsonObject& event);
  bool apply_artifact(const QJsonObject& event);
  bool apply_stage(const QJsonObject& event);
  bool apply_memorization(const QJsonObject& event);
  bool apply_restart(const QJsonObject& event);
  bool apply_run_finished(const QJsonObject& event);
  bool apply_run_failed(const QJsonObject& event);

  RunModel* model_;
  EventStreamReaderOptions options_;
  QByteArray partial_;
  bool skipping_ = false;  // inside an oversized line: drop bytes up to its newline
  ReaderStats stats_;
};

}  // namespace medsynth::app

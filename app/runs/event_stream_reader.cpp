// EventStreamReader: line framing with a bounded buffer, then one JSON object
// per line dispatched by its "type" (docs/events.md).
#include "app/runs/event_stream_reader.hpp"

#include "contract/event_schema.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <cmath>
#include <string_view>
#include <limits>

namespace medsynth::app {

namespace key = event_schema::key;

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

QDateTime parse_time(const QJsonValue& v) {
  if (!v.isString()) return {};
  QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
  if (t.isValid()) t = t.toUTC();
  return t;
}

// A JSON number that is an integer; nullopt for anything else.
std::optional<qint64> integer(const QJsonValue& v) {
  if (!v.isDouble()) return std::nullopt;
  const double d = v.toDouble();
  if (!std::isfinite(d) || d != std::floor(d)) return std::nullopt;
  return v.toInteger(static_cast<qint64>(d));
}

// A number, or null (non-finite / unknown) -> fallback; nullopt for a wrong type.
std::optional<double> number_or_null(const QJsonValue& v, double fallback) {
  if (v.isDouble()) return v.toDouble();
  if (v.isNull() || v.isUndefined()) return fallback;
  return std::nullopt;
}

double nonfinite_value(const QJsonValue& marker) {
  const QString m = marker.toString();
  if (m == QLatin1String("inf")) return std::numeric_limits<double>::infinity();
  if (m == QLatin1String("-inf")) return -std::numeric_limits<double>::infinity();
  return k_nan;
}

bool has_invalid_utf8(QByteArrayView line) {
  for (char c : line)
    if (static_cast<unsigned char>(c) >= 0x80) return true;  // only then can UTF-8 be the problem
  return false;
}

}  // namespace

EventStreamReader::EventStreamReader(RunModel* model, EventStreamReaderOptions options)
    : model_(model), options_(options) {
  if (options_.max_line_bytes < 1) options_.max_line_bytes = 1;
}

void EventStreamReader::feed(QByteArrayView chunk) {
  if (chunk.isEmpty()) return;
  if (model_) model_->begin_batch();
  qsizetype pos = 0;
  const qsizetype n = chunk.size();
  while (pos < n) {
    const qsizetype nl = chunk.indexOf('\n', pos);
    if (skipping_) {  // the rest of an oversized line: drop it unread
      if (nl < 0) break;
      skipping_ = false;
      pos = nl + 1;
      continue;
    }
    const QByteArrayView piece = chunk.sliced(pos, (nl < 0 ? n : nl) - pos);
    if (partial_.size() + piece.size() > options_.max_line_bytes) {
      ++stats_.lines;
      ++stats_.oversized;
      partial_.clear();
      partial_.squeeze();  // give the memory back
      if (nl < 0) {
        skipping_ = true;
        break;
      }
      pos = nl + 1;
      continue;
    }
    if (nl < 0) {
      partial_.append(piece);
      break;
    }
    if (partial_.isEmpty()) {
      handle_line(piece);
    } else {
      partial_.append(piece);
      handle_line(partial_);
      partial_.clear();
    }
    pos = nl + 1;
  }
  if (model_) {
    model_->set_reader_stats(stats_);
    model_->end_batch();
  }
}

void EventStreamReader::finish() {
  skipping_ = false;  // an oversized last line was counted when it overflowed
  if (!partial_.trimmed().isEmpty()) {
    ++stats_.lines;
    ++stats_.invalid_json;  // truncated: the writer never finished it
  }
  partial_.clear();
  if (model_) model_->set_reader_stats(stats_);
}

void EventStreamReader::reset() {
  partial_.clear();
  skipping_ = false;
  stats_ = {};
}

void EventStreamReader::handle_line(QByteArrayView line) {
  if (line.endsWith('\r')) line.chop(1);
  if (line.trimmed().isEmpty()) return;
  ++stats_.lines;
  QJsonParseError error{};
  QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromRawData(line.data(), line.size()), &error);
  if (error.error != QJsonParseError::NoError && has_invalid_utf8(line)) {
    // docs/events.md promises valid UTF-8; a writer that broke it still gets
    // read, with the bad bytes replaced by U+FFFD as the engine would.
    const QByteArray repaired = QString::fromUtf8(line).toUtf8();
    QJsonParseError retry{};
    QJsonDocument again = QJsonDocument::fromJson(repaired, &retry);
    if (retry.error == QJsonParseError::NoError) {
      ++stats_.invalid_utf8;
      doc = std::move(again);
      error = retry;
    }
  }
  if (error.error != QJsonParseError::NoError || !doc.isObject()) {
    ++stats_.invalid_json;
    return;
  }
  apply(doc.object());
}

void EventStreamReader::apply(const QJsonObject& event) {
  const auto version = integer(event.value(QLatin1String(key::v)));
  if (!version) {
    ++stats_.missing_fields;  // still read: the type says what it is
  } else if (*version > k_known_version) {
    ++stats_.newer_version;
  }
  const QJsonValue type_value = event.value(QLatin1String(key::type));
  if (!type_value.isString()) {
    ++stats_.missing_fields;
    return;
  }
  const QString type = type_value.toString();
  bool ok = true;
  // Most lines are metrics: test that first. Types: engine/contract/event_schema.hpp.
  auto is = [&](std::string_view name) { return type == QLatin1String(name.data(), static_cast<qsizetype>(name.size())); };
  namespace schema = event_schema;
  if (is(schema::metric))
    ok = apply_metric(event);
  else if (is(schema::progress))
    ok = apply_progress(event);
  else if (is(schema::log))
    ok = apply_log(event);
  else if (is(schema::checkpoint))
    ok = apply_checkpoint(event);
  else if (is(schema::artifact))
    ok = apply_artifact(event);
  else if (is(schema::stage))
    ok = apply_stage(event);
  else if (is(schema::memorization))
    ok = apply_memorization(event);
  else if (is(schema::run_started))
    ok = apply_run_started(event);
  else if (is(schema::restart))
    ok = apply_restart(event);
  else if (is(schema::run_finished))
    ok = apply_run_finished(event);
  else if (is(schema::run_failed))
    ok = apply_run_failed(event);
  else
    ++stats_.unknown_types;
  if (!ok) ++stats_.missing_fields;
}

bool EventStreamReader::apply_metric(const QJsonObject& event) {
  const QJsonValue name = event.value(QLatin1String(key::name));
  const auto step = integer(event.value(QLatin1String(key::step)));
  const QJsonValue value = event.value(QLatin1String(key::value));
  if (!name.isString() || name.toString().isEmpty() || !step) return false;
  if (value.isDouble()) {
    if (model_) model_->append_metric(name.toString(), *step, value.toDouble(), true);
    return true;
  }
  if (value.isNull()) {  // non-finite: "nonfinite" tells which (absent: NaN)
    if (model_)
      model_->append_metric(name.toString(), *step, nonfinite_value(event.value(QLatin1String(key::nonfinite))), false);
    return true;
  }
  return false;
}

bool EventStreamReader::apply_progress(const QJsonObject& event) {
  const auto step = integer(event.value(QLatin1String(key::step)));
  if (!step) return false;
  const qint64 total = integer(event.value(QLatin1String(key::total_steps))).value_or(0);
  const int epoch = static_cast<int>(integer(event.value(QLatin1String(key::epoch))).value_or(0));
  const int epochs = static_cast<int>(integer(event.value(QLatin1String(key::epochs))).value_or(0));
  const auto rate = number_or_null(event.value(QLatin1String(key::samples_per_s)), -1.0);
  const auto eta = number_or_null(event.value(QLatin1String(key::eta_s)), -1.0);
  if (model_) {
    model_->note_event_time(parse_time(event.value(QLatin1String(key::time))));
    model_->apply_progress(*step, total, epoch, epochs, rate.value_or(-1.0), eta.value_or(-1.0));
  }
  return rate && eta;
}

bool EventStreamReader::apply_run_started(const QJsonObject& event) {
  RunStartInfo info;
  bool complete = true;
  auto text = [&](const char* name, QString& out) {
    const QJsonValue v = event.value(QLatin1String(name));
    if (v.isString())
      out = v.toString();
    else
      complete = false;
  };
  text(key::run_dir, info.run_dir);
  text(key::job_name, info.job_name);
  text(key::task, info.task);
  text(key::config_hash, info.config_hash);
  text(key::device, info.device);
  const auto world = integer(event.value(QLatin1String(key::world_size)));
  const auto batch = integer(event.value(QLatin1String(key::effective_batch)));
  const auto total = integer(event.value(QLatin1String(key::total_steps)));
  complete = complete && world && batch && total;
  info.world_size = static_cast<int>(world.value_or(0));
  info.effective_batch = static_cast<int>(batch.value_or(0));
  info.total_steps = total.value_or(0);
  info.time = parse_time(event.value(QLatin1String(key::time)));
  // A pipeline names its stages up front, so the console can list them all.
  for (const QJsonValue& name :
       event.value(QLatin1String(key::extra)).toObject().value(QLatin1String(key::stages)).toArray())
    if (name.isString() && info.stages.size() < 64) info.stages << name.toString();
  info.verb = event.value(QLatin1String(key::extra)).toObject().value(QLatin1String(key::verb)).toString().left(32);
  if (model_) model_->apply_run_started(info);
  return complete;
}

bool EventStreamReader::apply_log(const QJsonObject& event) {
  const QJsonValue message = event.value(QLatin1String(key::message));
  if (!message.isString()) return false;
  LogLine line;
  line.time = parse_time(event.value(QLatin1String(key::time)));
  line.rank = static_cast<int>(integer(event.value(QLatin1String(key::rank))).value_or(0));
  line.level = event.value(QLatin1String(key::level)).toString(QStringLiteral("info"));
  line.message = message.toString();
  if (model_) {
    model_->note_event_time(line.time);
    model_->append_log(line, true);
  }
  return true;
}

bool EventStreamReader::apply_checkpoint(const QJsonObject& event) {
  const QJsonValue path = event.value(QLatin1String(key::path));
  if (!path.isString()) return false;
  CheckpointInfo c;
  c.path = path.toString();
  c.step = integer(event.value(QLatin1String(key::step))).value_or(0);
  c.kind = event.value(QLatin1String(key::kind)).toString(QStringLiteral("last"));
  c.metric = event.value(QLatin1String(key::metric)).toString();
  const QJsonValue value = event.value(QLatin1String(key::value));
  c.value = value.isDouble() ? value.toDouble()
            : value.isNull() ? nonfinite_value(event.value(QLatin1String(key::nonfinite)))
                             : 0.0;
  if (model_) model_->apply_checkpoint(c);
  return true;
}

bool EventStreamReader::apply_artifact(const QJsonObject& event) {
  const QJsonValue path = event.value(QLatin1String(key::path));
  if (!path.isString()) return false;
  Artifact a;
  a.path = path.toString();
  a.kind = event.value(QLatin1String(key::kind)).toString(QStringLiteral("file"));
  a.step = integer(event.value(QLatin1String(key::step))).value_or(0);
  if (model_) model_->apply_artifact(a);
  return true;
}

bool EventStreamReader::apply_stage(const QJsonObject& event) {
  const QJsonValue stage = event.value(QLatin1String(key::stage)), status = event.value(QLatin1String(key::status));
  if (!stage.isString() || !status.isString()) return false;
  if (model_) {
    model_->note_event_time(parse_time(event.value(QLatin1String(key::time))));
    StageInfo info;
    info.name = stage.toString();
    info.status = status.toString();
    info.dir = event.value(QLatin1String(key::dir)).toString();
    // Optional (engines before issue 23 wrote none): the stage's own progress.
    info.steps = integer(event.value(QLatin1String(key::steps))).value_or(-1);
    info.first_step = integer(event.value(QLatin1String(key::first_step))).value_or(0);
    info.images = integer(event.value(QLatin1String(key::images))).value_or(-1);
    model_->apply_stage(info);
  }
  return true;
}

bool EventStreamReader::apply_memorization(const QJsonObject& event) {
  const QJsonValue generated = event.value(QLatin1String(key::generated)),
                   nearest = event.value(QLatin1String(key::nearest));
  if (!generated.isString() || !nearest.isString()) return false;
  if (model_) {
    const QDateTime time = parse_time(event.value(QLatin1String(key::time)));
    model_->note_event_time(time);
    model_->append_log({time, -1, QStringLiteral("warn"),
                        QStringLiteral("memorization: %1 is a near copy of training case %2 (see the Evaluate tab)")
                            .arg(generated.toString(), nearest.toString())});
  }
  return true;
}

bool EventStreamReader::apply_restart(const QJsonObject& event) {
  const auto attempt = integer(event.value(QLatin1String(key::attempt)));
  const QString reason = event.value(QLatin1String(key::reason)).toString();
  if (model_) {
    model_->note_event_time(parse_time(event.value(QLatin1String(key::time))));
    model_->apply_restart(static_cast<int>(attempt.value_or(0)), reason);
  }
  return attempt.has_value();
}

bool EventStreamReader::apply_run_finished(const QJsonObject& event) {
  const QJsonValue status = event.value(QLatin1String(key::status));
  QMap<QString, double> metrics;
  const QJsonObject m = event.value(QLatin1String(key::metrics)).toObject();
  for (auto it = m.begin(); it != m.end(); ++it) metrics.insert(it.key(), it.value().isDouble() ? it.value().toDouble() : k_nan);
  const auto duration = number_or_null(event.value(QLatin1String(key::duration_s)), 0.0);
  if (model_)
    model_->apply_run_finished(status.toString(QStringLiteral("completed")), metrics, duration.value_or(0.0),
                               parse_time(event.value(QLatin1String(key::time))));
  return status.isString();
}

bool EventStreamReader::apply_run_failed(const QJsonObject& event) {
  const QJsonValue message = event.value(QLatin1String(key::message));
  const QString kind = event.value(QLatin1String(key::error)).toString(QStringLiteral("runtime"));
  const auto exit_code = integer(event.value(QLatin1String(key::exit_code)));
  const int rank = static_cast<int>(integer(event.value(QLatin1String(key::rank))).value_or(0));
  if (model_)
    model_->apply_run_failed(kind, message.toString(), static_cast<int>(exit_code.value_or(1)), rank,
                             parse_time(event.value(QLatin1String(key::time))));
  return message.isString();
}

}  // namespace medsynth::app

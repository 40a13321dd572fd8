// RankLogReader: line framing (like EventStreamReader, but long lines are cut,
// not skipped: a person wants to see them) and the RunLogger line format.
#include "app/runs/rank_log_reader.hpp"

#include <QRegularExpression>

namespace medsynth::app {

std::optional<LogLine> parse_rank_log_line(QStringView text) {
  // "2026-11-22 05:31:02.123 [rank 0] INFO message"
  static const QRegularExpression pattern(
      QStringLiteral(R"(^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,3})?) \[rank (-?\d+)\] ([A-Z]+) ?(.*)$)"));
  const auto m = pattern.match(text);
  if (!m.hasMatch()) return std::nullopt;
  LogLine line;
  line.time = QDateTime::fromString(m.captured(1), QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
  if (!line.time.isValid()) line.time = QDateTime::fromString(m.captured(1), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
  line.time.setTimeSpec(Qt::UTC);  // RunLogger writes UTC
  line.rank = m.captured(2).toInt();
  line.level = m.captured(3).toLower();
  line.message = m.captured(4);
  return line;
}

RankLogReader::RankLogReader(RunModel* model, int rank, qsizetype max_line_bytes)
    : model_(model), rank_(rank), max_line_bytes_(std::max<qsizetype>(max_line_bytes, 16)) {}

void RankLogReader::feed(QByteArrayView chunk) {
  if (chunk.isEmpty() || !model_) return;
  model_->begin_batch();
  qsizetype pos = 0;
  while (pos < chunk.size()) {
    const qsizetype nl = chunk.indexOf('\n', pos);
    const QByteArrayView piece = chunk.sliced(pos, (nl < 0 ? chunk.size() : nl) - pos);
    if (skipping_) {
      if (nl < 0) break;
      skipping_ = false;
      pos = nl + 1;
      continue;
    }
    const qsizetype room = max_line_bytes_ - partial_.size();
    if (piece.size() > room) {  // keep the head of a huge line, drop the rest
      partial_.append(piece.first(room));
      handle_line(partial_);
      partial_.clear();
      skipping_ = nl < 0;
      pos = nl < 0 ? chunk.size() : nl + 1;
      continue;
    }
    partial_.append(piece);
    if (nl < 0) break;
    handle_line(partial_);
    partial_.clear();
    pos = nl + 1;
  }
  model_->end_batch();
}

void RankLogReader::finish() {
  if (!partial_.isEmpty() && model_) handle_line(partial_);
  partial_.clear();
  skipping_ = false;
}

void RankLogReader::reset() {
  partial_.clear();
  skipping_ = false;
}

void RankLogReader::handle_line(QByteArrayView bytes) {
  if (bytes.endsWith('\r')) bytes.chop(1);
  if (bytes.isEmpty()) return;
  const QString text = QString::fromUtf8(bytes);
  if (auto line = parse_rank_log_line(text)) {
    if (line->rank != rank_) line->rank = rank_;  // the file decides the tab
    model_->append_log(*line);
    return;
  }
  // A continuation (a multi-line message, a stack trace): keep it, unparsed.
  LogLine line;
  line.rank = rank_;
  const auto& existing = model_->logs(rank_);
  if (!existing.isEmpty()) line.time = existing.back().time;
  line.message = text;
  model_->append_log(line);
}

}  // namespace medsynth::app

#include "app/launch/line_splitter.hpp"

#include <algorithm>

namespace medsynth::app {

LineSplitter::LineSplitter(qsizetype max_line_bytes) : max_line_bytes_(std::max<qsizetype>(max_line_bytes, 1)) {}

QStringList LineSplitter::feed(const QByteArray& chunk) {
  QStringList lines;
  qsizetype pos = 0;
  while (pos < chunk.size()) {
    const qsizetype newline = chunk.indexOf('\n', pos);
    const qsizetype end = newline < 0 ? chunk.size() : newline;
    const qsizetype take = std::min(max_line_bytes_ - partial_.size(), end - pos);
    partial_.append(chunk.constData() + pos, take);
    dropped_ += end - pos - take;
    if (newline < 0) break;
    lines << take_line();
    pos = newline + 1;
  }
  return lines;
}

QStringList LineSplitter::finish() {
  if (partial_.isEmpty() && dropped_ == 0) return {};
  return {take_line()};
}

void LineSplitter::clear() {
  partial_.clear();
  dropped_ = 0;
}

QString LineSplitter::take_line() {
  QString line = QString::fromUtf8(partial_);
  if (dropped_ > 0) line += QStringLiteral(" [... %1 more bytes of this line dropped]").arg(dropped_);
  clear();
  return line;
}

}  // namespace medsynth::app

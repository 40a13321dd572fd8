// LineSplitter: a worker's stderr or a node's output as lines, holding at most
// max_line_bytes of an unfinished line. A worker that prints 64 MiB without a
// newline must not make the console hold 64 MiB: a longer line is cut there,
// marked with what was dropped, and the rest of it up to its newline skipped.
// Used by the local, SSH and SLURM launchers.
#pragma once

#include <QByteArray>
#include <QStringList>

namespace medsynth::app {

class LineSplitter {
 public:
  explicit LineSplitter(qsizetype max_line_bytes = 64 * 1024);

  // The lines that `chunk` completes, without their newlines.
  QStringList feed(const QByteArray& chunk);
  // The unfinished last line, if any (at the end of the stream).
  QStringList finish();
  void clear();
  qsizetype buffered_bytes() const { return partial_.size(); }

 private:
  QString take_line();

  qsizetype max_line_bytes_;
  QByteArray partial_;
  qsizetype dropped_ = 0;  // bytes of the current line beyond max_line_bytes_
};

}  // namespace medsynth::app

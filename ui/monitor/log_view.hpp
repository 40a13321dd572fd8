// One rank's log in the run monitor (a tab per rank, "launcher" for rank -1):
// a read-only text view with a minimum-level filter and a search box that
// keeps only matching lines. Reads lines from the RunModel; new lines are
// appended in batches by a short timer, so a chatty run does not redraw per line.
//
// GUI thread only.
#pragma once

#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include "app/runs/run_model.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
QT_END_NAMESPACE

namespace medsynth::ui {

struct LogViewOptions {
  int max_lines = 50'000;        // oldest lines drop out of the view (the model keeps them)
  int flush_interval_ms = 100;   // batching of appended lines

  QString validate() const;
};

class LogView : public QWidget {
  Q_OBJECT

 public:
  explicit LogView(QWidget* parent = nullptr, LogViewOptions options = {});

  // Shows `rank`'s lines of `model` and follows its log_appended signal.
  void set_source(const app::RunModel* model, int rank);
  int rank() const { return rank_; }

  // "" (all), "debug", "info", "warn" or "error": lines below it are hidden.
  void set_min_level(const QString& level);
  QString min_level() const;
  void set_filter_text(const QString& text);

  // Lines on screen (after filters): for tests.
  QStringList visible_lines() const;
  // Formats one line as shown: "2026-11-22 05:31:02.123 WARN message".
  static QString format_line(const app::LogLine& line);

 public slots:
  void flush();  // append what arrived since the last flush (the timer calls it)

 private:
  void on_log_appended(int rank, int first_new_index);
  void rebuild();
  bool accepts(const app::LogLine& line, const QString& effective_level) const;

  LogViewOptions options_;
  QPointer<const app::RunModel> model_;
  int rank_ = 0;
  int shown_upto_ = 0;         // lines of the model already considered
  QString last_level_;         // a continuation line takes its predecessor's level
  QComboBox* level_ = nullptr;
  QLineEdit* search_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
  QLabel* count_ = nullptr;
  int shown_count_ = 0;
  QTimer flush_timer_;
};

}  // namespace medsynth::ui

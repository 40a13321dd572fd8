#include "ui/monitor/log_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSyntaxHighlighter>
#include <QTextDocument>
#include <QVBoxLayout>
#include <stdexcept>

namespace medsynth::ui {

namespace {

int level_rank(const QString& level) {
  if (level == QLatin1String("debug")) return 0;
  if (level == QLatin1String("info")) return 1;
  if (level == QLatin1String("warn") || level == QLatin1String("warning")) return 2;
  if (level == QLatin1String("error")) return 3;
  return 1;  // unknown levels count as info
}

// Warnings and errors stand out; matched on the formatted line's level word.
class LogHighlighter : public QSyntaxHighlighter {
 public:
  using QSyntaxHighlighter::QSyntaxHighlighter;

 protected:
  void highlightBlock(const QString& text) override {
    // "YYYY-MM-DD hh:mm:ss.zzz LEVEL ..." : the level starts at column 24.
    const QStringView level = QStringView(text).mid(24, 5);
    if (level.startsWith(u"ERROR")) setFormat(0, text.size(), QColor(0xd6, 0x27, 0x28));
    else if (level.startsWith(u"WARN")) setFormat(0, text.size(), QColor(0xe0, 0x8a, 0x00));
    else if (level.startsWith(u"DEBUG")) setFormat(0, text.size(), QColor(0x88, 0x88, 0x88));
  }
};

}  // namespace

QString LogViewOptions::validate() const {
  if (max_lines < 1) return QStringLiteral("max_lines: must be >= 1 (got %1)").arg(max_lines);
  if (flush_interval_ms < 0) return QStringLiteral("flush_interval_ms: must be >= 0 (got %1)").arg(flush_interval_ms);
  return {};
}

LogView::LogView(QWidget* parent, LogViewOptions options) : QWidget(parent), options_(options) {
  if (const QString error = options_.validate(); !error.isEmpty()) throw std::invalid_argument(error.toStdString());
  level_ = new QComboBox(this);
  level_->addItem(tr("All levels"), QString());
  level_->addItem(tr("Info and above"), QStringLiteral("info"));
  level_->addItem(tr("Warnings and errors"), QStringLiteral("warn"));
  level_->addItem(tr("Errors only"), QStringLiteral("error"));
  level_->setObjectName("log_level");
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search log…"));
  search_->setClearButtonEnabled(true);
  search_->setObjectName("log_search");
  count_ = new QLabel(this);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setMaximumBlockCount(options_.max_lines);
  text_->setFont(QFont(QStringLiteral("monospace")));
  text_->setObjectName("log_text");
  new LogHighlighter(text_->document());

  auto* bar = new QHBoxLayout();
  bar->addWidget(level_);
  bar->addWidget(search_, 1);
  bar->addWidget(count_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(text_, 1);

  flush_timer_.setSingleShot(true);
  flush_timer_.setInterval(options_.flush_interval_ms);
  connect(&flush_timer_, &QTimer::timeout, this, &LogView::flush);
  connect(level_, &QComboBox::currentIndexChanged, this, &LogView::rebuild);
  connect(search_, &QLineEdit::textChanged, this, &LogView::rebuild);
}

void LogView::set_source(const app::RunModel* model, int rank) {
  if (model_) disconnect(model_, nullptr, this, nullptr);
  model_ = model;
  rank_ = rank;
  if (model_) {
    connect(model_, &app::RunModel::log_appended, this, &LogView::on_log_appended);
    connect(model_, &app::RunModel::cleared, this, &LogView::rebuild);
  }
  rebuild();
}

void LogView::set_min_level(const QString& level) {
  const int index = level_->findData(level == QLatin1String("debug") ? QString() : level);
  level_->setCurrentIndex(index < 0 ? 0 : index);
}

QString LogView::min_level() const { return level_->currentData().toString(); }

void LogView::set_filter_text(const QString& text) { search_->setText(text); }

QString LogView::format_line(const app::LogLine& line) {
  const QString level = line.level.isEmpty() ? QStringLiteral("     ") : line.level.toUpper().leftJustified(5);
  const QString time = line.time.isValid() ? line.time.toUTC().toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz"))
                                           : QStringLiteral("                       ");
  return time + ' ' + level + ' ' + line.message;
}

bool LogView::accepts(const app::LogLine& line, const QString& effective_level) const {
  const QString min = min_level();
  if (!min.isEmpty() && level_rank(effective_level) < level_rank(min)) return false;
  const QString needle = search_->text();
  return needle.isEmpty() || line.message.contains(needle, Qt::CaseInsensitive);
}

void LogView::on_log_appended(int rank, int first_new_index) {
  if (rank != rank_) return;
  if (first_new_index < shown_upto_) {  // the model was rewritten under us
    rebuild();
    return;
  }
  if (!flush_timer_.isActive()) flush_timer_.start();
}

void LogView::rebuild() {
  text_->clear();
  shown_upto_ = 0;
  shown_count_ = 0;
  last_level_.clear();
  flush();
}

void LogView::flush() {
  flush_timer_.stop();
  if (!model_) {
    count_->setText(tr("no log"));
    return;
  }
  const QVector<app::LogLine>& lines = model_->logs(rank_);
  if (shown_upto_ > lines.size()) {  // cleared: start over
    shown_upto_ = 0;
    text_->clear();
    shown_count_ = 0;
  }
  QStringList batch;
  for (int i = shown_upto_; i < lines.size(); ++i) {
    const app::LogLine& line = lines[i];
    if (!line.level.isEmpty()) last_level_ = line.level;
    if (accepts(line, line.level.isEmpty() ? last_level_ : line.level)) batch << format_line(line);
  }
  shown_upto_ = static_cast<int>(lines.size());
  if (!batch.isEmpty()) {
    QScrollBar* bar = text_->verticalScrollBar();
    const bool at_bottom = bar->value() >= bar->maximum() - 2;
    text_->appendPlainText(batch.join('\n'));
    if (at_bottom) bar->setValue(bar->maximum());
    shown_count_ += static_cast<int>(batch.size());
  }
  count_->setText(tr("%1 of %2 lines").arg(shown_count_).arg(lines.size()));
}

QStringList LogView::visible_lines() const {
  QString all = text_->toPlainText();
  if (all.isEmpty()) return {};
  return all.split('\n');
}

}  // namespace medsynth::ui

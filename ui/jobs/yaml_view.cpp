#include "ui/jobs/yaml_view.hpp"

#include <QFontDatabase>
#include <QScrollBar>
#include <QTextBlock>
#include <stdexcept>

namespace medsynth::ui {

QString YamlViewOptions::validate() const {
  if (commit_delay_ms < 0) return QStringLiteral("commit_delay_ms: must be >= 0 (got %1)").arg(commit_delay_ms);
  return {};
}

YamlView::YamlView(app::JobDocument* document, QWidget* parent, YamlViewOptions options)
    : QPlainTextEdit(parent), document_(document), options_(options) {
  if (const QString error = options_.validate(); !error.isEmpty()) throw std::invalid_argument(error.toStdString());
  setObjectName("yaml_view");
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabChangesFocus(false);
  commit_timer_.setSingleShot(true);
  commit_timer_.setInterval(options_.commit_delay_ms);
  connect(&commit_timer_, &QTimer::timeout, this, &YamlView::commit_now);
  connect(this, &QPlainTextEdit::textChanged, this, &YamlView::on_text_changed);
  connect(document_, &app::JobDocument::changed, this, &YamlView::load_from_document);
  connect(document_, &app::JobDocument::issues_changed, this, &YamlView::mark_issue_lines);
  load_from_document();
  mark_issue_lines();
}

void YamlView::on_text_changed() {
  if (loading_) return;
  commit_timer_.start();
}

void YamlView::commit_now() {
  commit_timer_.stop();
  const QString text = toPlainText();
  if (text != document_->yaml()) document_->set_yaml(text);
}

void YamlView::load_from_document() {
  const QString text = document_->yaml();
  if (text == toPlainText()) return;
  commit_timer_.stop();  // the document moved on (form edit, load): drop the stale pending edit
  loading_ = true;
  const int scroll = verticalScrollBar()->value();
  const int position = textCursor().position();
  QTextCursor cursor(QPlainTextEdit::document());
  cursor.beginEditBlock();  // one undo step, and the undo history survives
  cursor.select(QTextCursor::Document);
  cursor.insertText(text);
  cursor.endEditBlock();
  QTextCursor restore = textCursor();
  restore.setPosition(std::min(position, static_cast<int>(text.size())));
  setTextCursor(restore);
  verticalScrollBar()->setValue(scroll);
  loading_ = false;
  mark_issue_lines();
}

void YamlView::mark_issue_lines() {
  QList<QTextEdit::ExtraSelection> marks;
  QColor tint(0xd6, 0x27, 0x28);
  tint.setAlpha(60);
  for (const app::FieldIssue& issue : document_->issues()) {
    if (issue.line < 1) continue;
    const QTextBlock block = QPlainTextEdit::document()->findBlockByNumber(issue.line - 1);
    if (!block.isValid()) continue;
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(block);
    mark.format.setBackground(tint);
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.format.setToolTip(issue.to_string());
    marks << mark;
  }
  setExtraSelections(marks);
}

}  // namespace medsynth::ui

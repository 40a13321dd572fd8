#include "ui/jobs/template_picker.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QSignalBlocker>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace medsynth::ui {

TemplatePicker::TemplatePicker(QWidget* parent) : QWidget(parent), templates_(app::builtin_templates()) {
  combo_ = new QComboBox(this);
  combo_->setObjectName("template_combo");
  for (const app::JobTemplate& t : templates_) {
    combo_->addItem(t.engine_supported ? t.title : tr("%1 (pending)").arg(t.title), t.id);
  }
  combo_->setPlaceholderText(tr("(a job file is open)"));
  use_ = new QPushButton(tr("New from template"), this);
  use_->setObjectName("use_template");
  details_ = new QLabel(this);
  details_->setWordWrap(true);
  details_->setTextFormat(Qt::RichText);

  auto* row = new QHBoxLayout();
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(tr("Template:"), this));
  row->addWidget(combo_, 1);
  row->addWidget(use_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(row);
  layout->addWidget(details_);

  connect(combo_, &QComboBox::currentIndexChanged, this, &TemplatePicker::show_details);
  connect(use_, &QPushButton::clicked, this, [this] {
    if (!current_id().isEmpty()) emit template_chosen(current_id());
  });
  show_details();
}

QString TemplatePicker::current_id() const { return combo_->currentData().toString(); }

bool TemplatePicker::select(const QString& id) {
  const int index = combo_->findData(id);
  if (index < 0) return false;
  combo_->setCurrentIndex(index);
  return true;
}

void TemplatePicker::show_loaded(const QString& id) {
  loaded_ = id;
  show_details();
}

QString TemplatePicker::details_text() const { return details_->text(); }

void TemplatePicker::show_opened_job(const QString& path, const QString& task) {
  loaded_.clear();
  {
    const QSignalBlocker block(combo_);
    combo_->setCurrentIndex(-1);  // the placeholder: no template
  }
  details_->setText(tr("Editing <b>%1</b> (task: %2), a job file, not a template. Choose a template and press "
                       "<i>New from template</i> to start another job.")
                        .arg(QFileInfo(path).fileName().toHtmlEscaped(), task.toHtmlEscaped()));
}

void TemplatePicker::show_details() {
  const int index = combo_->currentIndex();
  if (index < 0 || index >= templates_.size()) {
    details_->clear();
    return;
  }
  const app::JobTemplate& t = templates_[index];
  QString html = t.description.toHtmlEscaped();
  if (!t.workflow.isEmpty()) html += tr(" <i>(from %1)</i>").arg(t.workflow.toHtmlEscaped());
  if (!t.engine_supported) {
    html += QStringLiteral("<br><span style='color:#e08a00'>%1</span>")
                .arg(tr("Cannot be launched yet: %1").arg(t.pending_reason.toHtmlEscaped()));
  }
  if (t.id != loaded_)
    html += QStringLiteral("<br><b>%1</b>").arg(tr("The job below is unchanged until you press New from template."));
  details_->setText(html);
}

}  // namespace medsynth::ui

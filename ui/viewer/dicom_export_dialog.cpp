#include "ui/viewer/dicom_export_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace medsynth::ui {

DicomExportDialog::DicomExportDialog(std::shared_ptr<const Volume> volume, app::DicomExportSource source,
                                     QWidget* parent)
    : QDialog(parent), volume_(std::move(volume)), source_(std::move(source)) {
  setObjectName(QStringLiteral("dicom_export_dialog"));
  setWindowTitle(tr("Export DICOM"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  layout->addLayout(form);

  out_dir_ = new QLineEdit(this);
  out_dir_->setObjectName(QStringLiteral("out_dir"));
  out_dir_->setToolTip(tr("A new or empty folder; one file per axial slice goes into it"));
  auto* browse_button = new QPushButton(tr("Browse…"), this);
  browse_button->setObjectName(QStringLiteral("browse"));
  auto* folder_row = new QHBoxLayout;
  folder_row->addWidget(out_dir_, 1);
  folder_row->addWidget(browse_button);
  form->addRow(tr("Output folder:"), folder_row);

  modality_ = new QComboBox(this);
  modality_->setObjectName(QStringLiteral("modality"));
  modality_->addItem(tr("CT (values in HU)"), static_cast<int>(DicomModality::ct));
  modality_->addItem(tr("MR"), static_cast<int>(DicomModality::mr));
  form->addRow(tr("Modality:"), modality_);

  // DICOM's LO/PN values: at most 64 characters.
  const auto add_text_field = [&](const char* name, const QString& label) {
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QString::fromLatin1(name));
    edit->setMaxLength(64);
    form->addRow(label, edit);
    return edit;
  };
  patient_name_ = add_text_field("patient_name", tr("Patient name:"));
  patient_id_ = add_text_field("patient_id", tr("Patient ID:"));
  series_description_ = add_text_field("series_description", tr("Series description:"));

  summary_ = new QPlainTextEdit(this);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setReadOnly(true);
  summary_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_->setMinimumSize(560, 150);
  layout->addWidget(new QLabel(tr("What will be written:"), this));
  layout->addWidget(summary_, 1);

  message_ = new QLabel(this);
  message_->setObjectName(QStringLiteral("export_message"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(message_);

  buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  export_button_ = buttons_->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  export_button_->setObjectName(QStringLiteral("export"));
  export_button_->setDefault(true);
  layout->addWidget(buttons_);

  set_fields(app::default_dicom_export_fields(source_));
  show_message(QString(), false);

  connect(browse_button, &QPushButton::clicked, this, &DicomExportDialog::browse);
  connect(modality_, &QComboBox::currentIndexChanged, this, &DicomExportDialog::update_summary);
  for (QLineEdit* edit : {out_dir_, patient_name_, patient_id_, series_description_})
    connect(edit, &QLineEdit::textChanged, this, &DicomExportDialog::update_summary);
  // Export must not close the dialog at once: it closes when the files are written.
  connect(buttons_, &QDialogButtonBox::accepted, this, &DicomExportDialog::start_export);
  connect(buttons_, &QDialogButtonBox::rejected, this, &DicomExportDialog::reject);
}

DicomExportDialog::~DicomExportDialog() = default;

app::DicomExportFields DicomExportDialog::fields() const {
  app::DicomExportFields f;
  f.out_dir = out_dir_->text();
  f.modality = static_cast<DicomModality>(modality_->currentData().toInt());
  f.patient_name = patient_name_->text();
  f.patient_id = patient_id_->text();
  f.series_description = series_description_->text();
  return f;
}

void DicomExportDialog::set_fields(const app::DicomExportFields& f) {
  out_dir_->setText(f.out_dir);
  modality_->setCurrentIndex(modality_->findData(static_cast<int>(f.modality)));
  patient_name_->setText(f.patient_name);
  patient_id_->setText(f.patient_id);
  series_description_->setText(f.series_description);
  update_summary();
}

QString DicomExportDialog::summary_text() const { return summary_->toPlainText(); }
QString DicomExportDialog::message_text() const { return message_->text(); }

void DicomExportDialog::browse() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the DICOM series"), out_dir_->text());
  if (!dir.isEmpty()) out_dir_->setText(dir);
}

void DicomExportDialog::update_summary() { summary_->setPlainText(app::dicom_export_summary(source_, fields())); }

void DicomExportDialog::show_message(const QString& text, bool is_error) {
  message_->setText(text);
  message_->setStyleSheet(is_error ? QStringLiteral("color: #b00020;") : QString());
  message_->setVisible(!text.isEmpty());
}

bool DicomExportDialog::start_export() {
  if (exporting_) return false;
  app::DicomExportRequest request = app::build_dicom_export_request(source_, fields());
  if (!request.ok()) {
    show_message(request.error, true);
    return false;
  }
  exporting_ = true;
  export_button_->setEnabled(false);
  buttons_->button(QDialogButtonBox::Cancel)->setEnabled(false);
  show_message(tr("Writing %1 slices to %2…").arg(source_.size[2]).arg(QString::fromStdString(request.out_dir)), false);
  auto* watcher = new QFutureWatcher<app::DicomExportOutcome>(this);
  connect(watcher, &QFutureWatcher<app::DicomExportOutcome>::finished, this, [this, watcher] {
    const app::DicomExportOutcome outcome = watcher->result();
    watcher->deleteLater();
    finish(outcome);
  });
  // The worker holds the volume: it outlives the viewer's next load.
  watcher->setFuture(QtConcurrent::run([volume = volume_, request = std::move(request)] {
    return app::run_dicom_export(*volume, request);
  }));
  return true;
}

void DicomExportDialog::finish(const app::DicomExportOutcome& outcome) {
  exporting_ = false;
  export_button_->setEnabled(true);
  buttons_->button(QDialogButtonBox::Cancel)->setEnabled(true);
  show_message(outcome.message(), !outcome.ok());
  emit export_finished(outcome.ok(), outcome.message());
  if (outcome.ok()) accept();
}

void DicomExportDialog::reject() {
  if (!exporting_) QDialog::reject();
}

}  // namespace medsynth::ui

#include "ui/jobs/synthetic_dataset_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace medsynth::ui {

namespace {

// The form's row names are the request's field names, so that a problem
// ("Training CT: ...") names the row it is about.
QString row_label(const char* field) { return QString::fromLatin1(field) + QLatin1Char(':'); }

enum Column { k_case, k_label, k_seed, k_state, k_result, k_columns };

}  // namespace

SyntheticDatasetDialog::SyntheticDatasetDialog(const QString& runs_dir, QWidget* parent, const QString& engine)
    : QDialog(parent), flow_(new app::SyntheticDatasetFlow(this, engine)) {
  setWindowTitle(tr("Synthetic dataset"));
  setObjectName(QStringLiteral("synthetic_dataset_dialog"));
  build(runs_dir);
  connect_inputs();
  connect_flow();
  refresh();
}

QWidget* SyntheticDatasetDialog::with_browse(QLineEdit* edit, bool folder) {
  auto* row = new QWidget(this);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  auto* browse = new QToolButton(row);
  browse->setText(tr("…"));
  layout->addWidget(browse);
  connect(browse, &QToolButton::clicked, this, [this, edit, folder] {
    const QString path = folder ? QFileDialog::getExistingDirectory(this, tr("Choose a folder"), edit->text())
                                : QFileDialog::getOpenFileName(this, tr("Choose a file"), edit->text());
    if (!path.isEmpty()) edit->setText(path);
  });
  return row;
}

void SyntheticDatasetDialog::build(const QString& runs_dir) {
  build_inputs(runs_dir);

  auto* form = new QFormLayout;
  form->addRow(row_label(app::dataset_field::run), with_browse(run_, true));
  form->addRow(row_label(app::dataset_field::source), source_);
  form->addRow(row_label(app::dataset_field::segmentation_format), format_);
  form->addRow(row_label(app::dataset_field::labels), with_browse(labels_, true));
  form->addRow(row_label(app::dataset_field::cases), cases_);
  form->addRow(row_label(app::dataset_field::base_seed), seed_);
  form->addRow(quality_);
  form->addRow(row_label(app::dataset_field::quality_statistics), with_browse(statistics_, false));
  form->addRow(row_label(app::dataset_field::quality_tries), tries_);
  form->addRow(audit_);
  form->addRow(row_label(app::dataset_field::audit_train), with_browse(train_, true));
  form->addRow(row_label(app::dataset_field::export_format), export_);
  form->addRow(row_label(app::dataset_field::output_dir), with_browse(output_, true));

  build_progress_views();
  start_ = new QPushButton(tr("Make the dataset"), this);
  start_->setDefault(true);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setEnabled(false);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(stop_);
  buttons->addWidget(start_);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(problems_);
  layout->addWidget(table_, 1);
  layout->addWidget(summary_);
  layout->addWidget(log_);
  layout->addLayout(buttons);
  resize(900, 760);
}

// The request's inputs, in the form's order (runs_dir: where the dataset folder is suggested).
void SyntheticDatasetDialog::build_inputs(const QString& runs_dir) {
  run_ = new QLineEdit(this);
  run_->setPlaceholderText(tr("an import-maisi run directory (with its ControlNet)"));
  source_ = new QComboBox(this);
  source_->addItem(tr("Label maps in MAISI's classes (prepared, or painted in the label editor)"),
                   static_cast<int>(app::DatasetLabelSource::label_maps));
  source_->addItem(tr("Segmentations to prepare first (prepare-label)"),
                   static_cast<int>(app::DatasetLabelSource::segmentations));
  format_ = new QComboBox(this);
  format_->setEditable(true);
  format_->addItems({QStringLiteral("totalsegmentator"), QStringLiteral("vista3d")});
  format_->setToolTip(tr("prepare-label --from: totalsegmentator, vista3d, or the path of your map JSON"));
  labels_ = new QLineEdit(this);
  labels_->setPlaceholderText(tr("a folder of label volumes (or one file); cases take them in turn"));
  cases_ = new QSpinBox(this);
  cases_->setRange(1, 10000);
  cases_->setValue(4);
  seed_ = new QSpinBox(this);
  seed_->setRange(0, 1 << 30);
  seed_->setToolTip(tr("Case i uses seed S + i x tries, so that a quality retry never repeats another case's seed"));
  quality_ = new QCheckBox(tr("Check organ intensities and regenerate failures"), this);
  statistics_ = new QLineEdit(this);
  statistics_->setPlaceholderText(tr("image_median_statistics_ct.json (NV-Generate's layout)"));
  tries_ = new QSpinBox(this);
  tries_->setRange(1, 100);
  tries_->setValue(2);
  audit_ = new QCheckBox(tr("Audit for memorized training cases"), this);
  train_ = new QLineEdit(this);
  train_->setPlaceholderText(tr("the training CT folder"));
  export_ = new QComboBox(this);
  export_->addItem(tr("NIfTI pairs"), static_cast<int>(app::DatasetExport::nifti));
  export_->addItem(tr("NIfTI pairs + DICOM CT series with DICOM-SEG"), static_cast<int>(app::DatasetExport::dicom));
  output_ = new QLineEdit(this);
  output_->setText(QDir(runs_dir.isEmpty() ? QDir::homePath() : runs_dir)
                       .filePath(QStringLiteral("dataset-%1")
                                     .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))));
}

// What the form says is wrong, the cases' table, the summary and the engine's log.
void SyntheticDatasetDialog::build_progress_views() {
  problems_ = new QLabel(this);
  problems_->setObjectName(QStringLiteral("problems"));
  problems_->setWordWrap(true);
  problems_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  table_ = new QTableWidget(0, k_columns, this);
  table_->setHorizontalHeaderLabels({tr("Case"), tr("Label"), tr("Seed"), tr("State"), tr("Result")});
  table_->horizontalHeader()->setStretchLastSection(true);  // the result: the verdict and the files
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_->setMaximumHeight(120);
}

void SyntheticDatasetDialog::connect_inputs() {
  for (QLineEdit* edit : {run_, labels_, statistics_, train_, output_})
    connect(edit, &QLineEdit::textChanged, this, &SyntheticDatasetDialog::refresh);
  for (QSpinBox* box : {cases_, seed_, tries_})
    connect(box, &QSpinBox::valueChanged, this, &SyntheticDatasetDialog::refresh);
  for (QCheckBox* box : {quality_, audit_}) connect(box, &QCheckBox::toggled, this, &SyntheticDatasetDialog::refresh);
  for (QComboBox* box : {source_, export_})
    connect(box, &QComboBox::currentIndexChanged, this, &SyntheticDatasetDialog::refresh);
  connect(format_, &QComboBox::currentTextChanged, this, &SyntheticDatasetDialog::refresh);
  connect(start_, &QPushButton::clicked, this, &SyntheticDatasetDialog::start);
  connect(stop_, &QPushButton::clicked, flow_, &app::SyntheticDatasetFlow::cancel);
}

void SyntheticDatasetDialog::connect_flow() {
  connect(flow_, &app::SyntheticDatasetFlow::case_changed, this,
          [this](int index, app::DatasetCaseState state, const QString& detail) {
            if (index < 0 || index >= table_->rowCount()) return;
            table_->item(index, k_state)->setText(app::dataset_case_state_name(state));
            if (!detail.isEmpty()) table_->item(index, k_result)->setText(detail);
            table_->item(index, k_result)->setToolTip(detail);
            if (state == app::DatasetCaseState::failed)
              table_->item(index, k_state)->setForeground(QColor(0xc0, 0x39, 0x2b));
            table_->resizeColumnToContents(k_state);
            table_->scrollToItem(table_->item(index, k_state));
          });
  connect(flow_, &app::SyntheticDatasetFlow::output_line, this,
          [this](const QString& line) { log_->appendPlainText(line); });
  connect(flow_, &app::SyntheticDatasetFlow::step_started, this,
          [this](int, const QString&, const QStringList& arguments) {
            log_->appendPlainText(QStringLiteral("$ medsynth-engine %1").arg(arguments.join(QLatin1Char(' '))));
          });
  connect(flow_, &app::SyntheticDatasetFlow::finished, this, [this](const QString& card, int done, int failed) {
    summary_->setText(tr("%1 of %2 cases made, %3 failed. The dataset's card: %4")
                          .arg(done)
                          .arg(done + failed)
                          .arg(failed)
                          .arg(QDir::toNativeSeparators(card)));
    refresh();
    emit dataset_written(card);
  });
  connect(flow_, &app::SyntheticDatasetFlow::failed, this, [this](const QString& message) {
    summary_->setText(message);
    refresh();
  });
}

app::SyntheticDatasetRequest SyntheticDatasetDialog::request() const {
  app::SyntheticDatasetRequest r;
  r.run_dir = run_->text().trimmed();
  r.source = static_cast<app::DatasetLabelSource>(source_->currentData().toInt());
  r.segmentation_format = format_->currentText().trimmed();
  r.labels = labels_->text().trimmed();
  r.cases = cases_->value();
  r.base_seed = seed_->value();
  r.quality_check = quality_->isChecked();
  r.quality_statistics = statistics_->text().trimmed();
  r.quality_tries = tries_->value();
  r.audit = audit_->isChecked();
  r.audit_train = train_->text().trimmed();
  r.export_format = static_cast<app::DatasetExport>(export_->currentData().toInt());
  r.output_dir = output_->text().trimmed();
  return r;
}

void SyntheticDatasetDialog::refresh() {
  const bool segmentations = source_->currentData().toInt() == static_cast<int>(app::DatasetLabelSource::segmentations);
  format_->setEnabled(segmentations);
  statistics_->setEnabled(quality_->isChecked());
  tries_->setEnabled(quality_->isChecked());
  train_->setEnabled(audit_->isChecked());
  const QStringList problems = request().validate();
  problems_->setText(problems.join(QLatin1Char('\n')));
  const bool running = flow_->is_running();
  start_->setEnabled(problems.isEmpty() && !running);
  stop_->setEnabled(running);
}

void SyntheticDatasetDialog::show_plan() {
  const app::SyntheticDatasetPlan plan = app::plan_synthetic_dataset(request());
  table_->setRowCount(static_cast<int>(plan.cases.size()));
  for (const app::DatasetCase& c : plan.cases) {
    const QStringList cells{QString::number(c.index + 1), QFileInfo(c.label_source).fileName(), QString::number(c.seed),
                            app::dataset_case_state_name(app::DatasetCaseState::waiting), QString()};
    for (int column = 0; column < k_columns; ++column)
      table_->setItem(c.index, column, new QTableWidgetItem(cells[column]));
  }
  for (int column = 0; column < k_result; ++column) table_->resizeColumnToContents(column);
}

void SyntheticDatasetDialog::start() {
  if (!request().validate().isEmpty() || flow_->is_running()) return;
  log_->clear();
  summary_->clear();
  show_plan();
  flow_->start(request());
  refresh();
}

QString SyntheticDatasetDialog::problems_text() const { return problems_->text(); }

QString SyntheticDatasetDialog::summary_text() const { return summary_->text(); }

QString SyntheticDatasetDialog::log_text() const { return log_->toPlainText(); }

}  // namespace medsynth::ui

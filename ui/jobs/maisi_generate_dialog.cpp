#include "ui/jobs/maisi_generate_dialog.hpp"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "app/jobs/job_field_catalog.hpp"

namespace medsynth::ui {

namespace {

QWidget* with_browse(QLineEdit* edit, QToolButton** button, QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  *button = new QToolButton(row);
  (*button)->setText(QObject::tr("Browse…"));
  layout->addWidget(*button);
  return row;
}

// A job field's row (label, help, unit, range) from the catalog the job form uses.
app::JobField field_of(const char* path) {
  const auto field = app::find_job_field(QString::fromLatin1(path));
  Q_ASSERT(field);
  return field.value_or(app::JobField{});
}

QString form_label(const app::JobField& field) {
  return field.unit.isEmpty() ? field.label + QLatin1Char(':')
                              : QStringLiteral("%1 (%2):").arg(field.label, field.unit);
}

// The box accepts what the field's rule accepts: an exclusive end moves by
// one step of the box; an open end is the box's own limit.
void apply_range(QSpinBox* box, const app::JobField& field) {
  const int low = field.minimum_exclusive ? static_cast<int>(field.minimum) + 1 : static_cast<int>(field.minimum);
  const bool capped = field.maximum > field.minimum;
  const int high =
      capped ? (field.maximum_exclusive ? static_cast<int>(field.maximum) - 1 : static_cast<int>(field.maximum)) : 4096;
  box->setRange(low, high);
}

void apply_range(QDoubleSpinBox* box, const app::JobField& field) {
  const double step = std::pow(10.0, -box->decimals());
  const double low = field.minimum_exclusive ? field.minimum + step : field.minimum;
  const double high = field.maximum > field.minimum ? field.maximum : 100.0;
  box->setRange(low, high);
}

// One axis of the output size (voxels).
QSpinBox* new_size_box(const char* axis, const app::JobField& field, int value, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_size_%1").arg(axis));
  apply_range(box, field);
  box->setValue(value);
  box->setPrefix(QStringLiteral("%1 ").arg(axis));
  return box;
}

// One axis of the spacing, in the field's unit.
QDoubleSpinBox* new_spacing_box(const char* axis, const app::JobField& field, double value, QWidget* parent) {
  auto* box = new QDoubleSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_spacing_%1").arg(axis));
  box->setDecimals(3);
  apply_range(box, field);
  box->setSingleStep(0.25);
  box->setValue(value);
  box->setPrefix(QStringLiteral("%1 ").arg(axis));
  box->setSuffix(QLatin1Char(' ') + field.unit);
  return box;
}

QSpinBox* new_images_box(const app::JobField& field, int value, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_images"));
  apply_range(box, field);
  box->setValue(value);
  if (box->minimum() == 0) box->setSpecialValueText(MaisiGenerateDialog::tr("one per process"));
  return box;
}

// Modality and guidance: "the model's" below their field's range, which
// leaves import-maisi's choice (MR: 9 and 15) in place.
QSpinBox* new_modality_box(const app::JobField& field, int value, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_modality"));
  box->setRange(-1, 127);
  box->setValue(value);
  box->setSpecialValueText(MaisiGenerateDialog::tr("the model's"));
  box->setToolTip(field.help + MaisiGenerateDialog::tr(" 1 = CT, 9 = MR T1, 10 = T2 (docs/maisi.md)."));
  return box;
}

QDoubleSpinBox* new_guidance_box(const app::JobField& field, double value, QWidget* parent) {
  auto* box = new QDoubleSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_guidance"));
  box->setRange(-1.0, 50.0);
  box->setDecimals(1);
  box->setValue(value);
  box->setSpecialValueText(MaisiGenerateDialog::tr("the model's"));
  box->setToolTip(field.help);
  return box;
}

QSpinBox* new_processes_box(int processes, QWidget* parent) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(QStringLiteral("maisi_processes"));
  box->setRange(1, 64);
  box->setValue(std::max(1, processes));
  box->setToolTip(
      MaisiGenerateDialog::tr("Engine processes on this machine (one per GPU); more than one runs through "
                              "`medsynth-engine launch --nproc-per-node`"));
  return box;
}

}  // namespace

MaisiGenerateDialog::MaisiGenerateDialog(const QString& runs_dir, int processes, QWidget* parent, const QString& engine)
    : QDialog(parent), flow_(new app::MaisiGenerateFlow(this, engine)) {
  setObjectName(QStringLiteral("maisi_generate_dialog"));
  setWindowTitle(tr("Generate CT from MAISI weights"));
  auto* form = build_inputs(runs_dir, processes);
  build_layout(form);
  connect_inputs();
  connect_flow();
  resize(720, 620);
  refresh();
}

// The inputs and their form. Size, spacing and the image count take their
// label, help, unit and range from their job fields (generate.output_size,
// generate.spacing, generate.num_images): the dialog cannot drift from the
// rules the engine applies to the same values.
QFormLayout* MaisiGenerateDialog::build_inputs(const QString& runs_dir, int processes) {
  const app::MaisiGenerateRequest defaults;
  QWidget* folder_row = build_folder_input();

  model_ = new QComboBox(this);
  model_->setObjectName(QStringLiteral("maisi_model"));
  model_->addItems(app::maisi_models());

  QWidget* label_row = build_label_input();

  const app::JobField size_field = field_of("generate.output_size"), spacing_field = field_of("generate.spacing");
  auto* size_row = new QWidget(this);
  auto* size_layout = new QHBoxLayout(size_row);
  size_layout->setContentsMargins(0, 0, 0, 0);
  auto* spacing_row = new QWidget(this);
  auto* spacing_layout = new QHBoxLayout(spacing_row);
  spacing_layout->setContentsMargins(0, 0, 0, 0);
  const char* axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    size_[a] = new_size_box(axes[a], size_field, defaults.output_size[static_cast<std::size_t>(a)], size_row);
    size_layout->addWidget(size_[a]);
    spacing_[a] = new_spacing_box(axes[a], spacing_field, defaults.spacing[static_cast<std::size_t>(a)], spacing_row);
    spacing_layout->addWidget(spacing_[a]);
  }

  const app::JobField images_field = field_of("generate.num_images");
  images_ = new_images_box(images_field, defaults.num_images, this);
  const app::JobField modality_field = field_of("generate.modality"),
                      guidance_field = field_of("generate.guidance_scale");
  modality_ = new_modality_box(modality_field, defaults.modality, this);
  guidance_ = new_guidance_box(guidance_field, defaults.guidance_scale, this);
  processes_ = new_processes_box(processes, this);

  QWidget* finetune_row = build_finetune_inputs();

  runs_dir_ =
      new QLineEdit(runs_dir.isEmpty() ? QDir::home().filePath(QStringLiteral("medsynth-runs")) : runs_dir, this);
  QWidget* runs_row = with_browse(runs_dir_, &runs_browse_, this);

  auto* form = new QFormLayout();
  form->addRow(tr("NV-Generate folder:"), folder_row);
  form->addRow(tr("Model:"), model_);
  form->addRow(tr("Label map:"), label_row);
  form->addRow(form_label(size_field), size_row);
  form->addRow(form_label(spacing_field), spacing_row);
  form->addRow(form_label(images_field), images_);
  form->addRow(form_label(modality_field), modality_);
  form->addRow(form_label(guidance_field), guidance_);
  form->addRow(tr("Processes:"), processes_);
  form->addRow(tr("Fine-tune on:"), finetune_row);
  form->addRow(tr("Fine-tune steps:"), finetune_steps_);
  form->addRow(tr("Runs folder:"), runs_row);
  size_row->setToolTip(size_field.help);
  spacing_row->setToolTip(spacing_field.help);
  images_->setToolTip(images_field.help);
  return form;
}

QWidget* MaisiGenerateDialog::build_folder_input() {
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("maisi_folder"));
  folder_->setPlaceholderText(tr("the NV-Generate-CTMR folder"));
  return with_browse(folder_, &folder_browse_, this);
}

QWidget* MaisiGenerateDialog::build_label_input() {
  label_ = new QLineEdit(this);
  label_->setObjectName(QStringLiteral("maisi_label"));
  label_->setPlaceholderText(tr("optional: a label map (.nii.gz) to condition on"));
  label_->setClearButtonEnabled(true);
  return with_browse(label_, &label_browse_, this);
}

QWidget* MaisiGenerateDialog::build_finetune_inputs() {
  finetune_ = new QLineEdit(this);
  finetune_->setObjectName(QStringLiteral("maisi_finetune_data"));
  finetune_->setPlaceholderText(tr("optional: your CT volumes (folder or datalist) to fine-tune the UNet on first"));
  finetune_->setClearButtonEnabled(true);
  QWidget* finetune_row = with_browse(finetune_, &finetune_browse_, this);
  finetune_steps_ = new QSpinBox(this);
  finetune_steps_->setObjectName(QStringLiteral("maisi_finetune_steps"));
  finetune_steps_->setRange(1, 10000000);
  finetune_steps_->setValue(app::MaisiGenerateRequest{}.finetune_steps);
  finetune_steps_->setToolTip(
      tr("Optimizer steps of the fine-tuning (training.max_steps); the released "
         "autoencoder stays frozen and encodes your volumes"));
  return finetune_row;
}

void MaisiGenerateDialog::build_layout(QFormLayout* form) {
  auto* intro = new QLabel(tr("Samples a CT from NVIDIA's MAISI networks: the engine imports an NV-Generate-CTMR "
                              "download (configs/ and the models/ you downloaded) into a new run directory, then "
                              "generates. A label map, when given, conditions the ControlNet and is shown over the "
                              "image. With volumes to fine-tune on, the released UNet is trained on them first (a new "
                              "run whose stages show live) and that run generates."),
                           this);
  intro->setWordWrap(true);
  problems_ = new QLabel(this);
  problems_->setObjectName(QStringLiteral("maisi_problems"));
  problems_->setWordWrap(true);
  problems_->setStyleSheet(QStringLiteral("QLabel { color: #b3261e; }"));
  commands_ = new QPlainTextEdit(this);
  commands_->setObjectName(QStringLiteral("maisi_commands"));
  commands_->setReadOnly(true);
  commands_->setMaximumHeight(110);
  commands_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  log_ = new QPlainTextEdit(this);
  log_->setObjectName(QStringLiteral("maisi_log"));
  log_->setReadOnly(true);
  log_->setPlaceholderText(tr("The engine's progress shows here."));

  buttons_ = new QDialogButtonBox(this);
  generate_ = buttons_->addButton(tr("Generate"), QDialogButtonBox::AcceptRole);
  generate_->setObjectName(QStringLiteral("maisi_generate"));
  stop_ = buttons_->addButton(tr("Stop"), QDialogButtonBox::ActionRole);
  buttons_->addButton(QDialogButtonBox::Close);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(problems_);
  layout->addWidget(new QLabel(tr("Commands:"), this));
  layout->addWidget(commands_);
  layout->addWidget(log_, 1);
  layout->addWidget(buttons_);
}

void MaisiGenerateDialog::connect_inputs() {
  connect(folder_browse_, &QToolButton::clicked, this,
          [this] { browse_file(tr("NV-Generate-CTMR folder"), folder_, true); });
  connect(label_browse_, &QToolButton::clicked, this, [this] { browse_file(tr("Label map"), label_, false); });
  connect(runs_browse_, &QToolButton::clicked, this, [this] { browse_file(tr("Runs folder"), runs_dir_, true); });
  connect(finetune_browse_, &QToolButton::clicked, this,
          [this] { browse_file(tr("Volumes to fine-tune on"), finetune_, true); });
  for (QLineEdit* edit : {folder_, label_, runs_dir_, finetune_})
    connect(edit, &QLineEdit::textChanged, this, &MaisiGenerateDialog::refresh);
  connect(model_, &QComboBox::currentIndexChanged, this, &MaisiGenerateDialog::refresh);
  for (int a = 0; a < 3; ++a) {
    connect(size_[a], &QSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
    connect(spacing_[a], &QDoubleSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  }
  connect(images_, &QSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  connect(modality_, &QSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  connect(guidance_, &QDoubleSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  connect(processes_, &QSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  connect(finetune_steps_, &QSpinBox::valueChanged, this, &MaisiGenerateDialog::refresh);
  connect(generate_, &QPushButton::clicked, this, &MaisiGenerateDialog::start);
  connect(stop_, &QPushButton::clicked, flow_, &app::MaisiGenerateFlow::cancel);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void MaisiGenerateDialog::connect_flow() {
  connect(flow_, &app::MaisiGenerateFlow::stage_started, this,
          [this](const QString&, const QString& command) { append_log(QStringLiteral("$ ") + command); });
  connect(flow_, &app::MaisiGenerateFlow::output_line, this, &MaisiGenerateDialog::append_log);
  connect(flow_, &app::MaisiGenerateFlow::failed, this, [this](const QString& message) {
    append_log(tr("Failed: %1").arg(message));
    engine_error_ = message;
    refresh();
  });
  connect(flow_, &app::MaisiGenerateFlow::succeeded, this, [this](const QString& image, const QString& label) {
    append_log(label.isEmpty() ? tr("Done: %1").arg(image) : tr("Done: %1 and %2").arg(image, label));
    refresh();
    emit generated(image, label);
  });
}

app::MaisiGenerateRequest MaisiGenerateDialog::request() const {
  app::MaisiGenerateRequest r;
  r.folder = folder_->text().trimmed();
  r.model = model_->currentText();
  r.label_map = label_->text().trimmed();
  for (int a = 0; a < 3; ++a) {
    r.output_size[static_cast<std::size_t>(a)] = size_[a]->value();
    r.spacing[static_cast<std::size_t>(a)] = spacing_[a]->value();
  }
  r.num_images = images_->value();
  r.modality = modality_->value();
  r.guidance_scale = guidance_->value() < 0 ? -1.0 : guidance_->value();
  r.nproc_per_node = processes_->value();
  r.finetune_data = finetune_->text().trimmed();
  r.finetune_steps = finetune_steps_->value();
  const QString runs = runs_dir_->text().trimmed();
  if (!runs.isEmpty()) r.run_dir = app::default_maisi_run_dir(runs, r.model, QDateTime::currentDateTime());
  return r;
}

QStringList MaisiGenerateDialog::problems() const { return request().validate(); }

QString MaisiGenerateDialog::problems_text() const { return problems_->text(); }
QString MaisiGenerateDialog::commands_text() const { return commands_->toPlainText(); }
QString MaisiGenerateDialog::log_text() const { return log_->toPlainText(); }

void MaisiGenerateDialog::refresh() {
  const bool running = flow_->is_running();
  const app::MaisiGenerateRequest r = request();
  const QStringList problems = r.validate();
  problems_->setText(!problems.isEmpty() ? problems.join(QLatin1Char('\n')) : running ? QString() : engine_error_);
  const QString engine = QStringLiteral("medsynth-engine");
  commands_->setPlainText(engine + QLatin1Char(' ') + app::maisi_import_arguments(r).join(QLatin1Char(' ')) +
                          QLatin1Char('\n') + engine + QLatin1Char(' ') +
                          app::maisi_generate_arguments(r).join(QLatin1Char(' ')));
  finetune_steps_->setEnabled(!r.finetune_data.isEmpty());
  generate_->setText(r.finetune_data.isEmpty() ? tr("Generate") : tr("Fine-tune and generate"));
  generate_->setEnabled(!running && problems.isEmpty());
  stop_->setEnabled(running);
  // With a label map the engine makes the image on the label's grid: size
  // and spacing come from it, so their boxes say so instead of being ignored.
  const bool labelled = !r.label_map.isEmpty();
  for (int axis = 0; axis < 3; ++axis) {
    for (QWidget* box : {static_cast<QWidget*>(size_[axis]), static_cast<QWidget*>(spacing_[axis])}) {
      box->setEnabled(!labelled);
      box->setToolTip(labelled ? tr("The image takes the label map's grid (its size and spacing).") : QString());
    }
  }
}

void MaisiGenerateDialog::start() {
  log_->clear();
  engine_error_.clear();
  flow_->start(request());
  refresh();
}

void MaisiGenerateDialog::append_log(const QString& line) { log_->appendPlainText(line); }

QString MaisiGenerateDialog::browse_file(const QString& title, QLineEdit* edit, bool folder) {
  const QString start = edit->text().isEmpty() ? QDir::homePath() : edit->text();
  const QString path = folder ? QFileDialog::getExistingDirectory(this, title, start)
                              : QFileDialog::getOpenFileName(this, title, QFileInfo(start).path(),
                                                             tr("Label maps (*.nii *.nii.gz);;All files (*)"));
  if (!path.isEmpty()) edit->setText(path);
  return path;
}

}  // namespace medsynth::ui

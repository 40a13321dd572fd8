#include "ui/viewer/label_studio.hpp"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "app/launch/label_generation_request.hpp"
#include "app/session/run_controller.hpp"
#include "ui/viewer/label_edit_toolbar.hpp"
#include "ui/viewer/label_map.hpp"
#include "ui/viewer/label_overlay_controller.hpp"
#include "ui/viewer/label_painter.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"

namespace medsynth::ui {

namespace {

// Painting is on slices; the 3D views would only cost frames under software GL.
ViewerOptions slice_viewer_options() {
  ViewerOptions options;
  options.volume_rendering = false;
  return options;
}

}  // namespace

LabelStudio::LabelStudio(QWidget* parent, const QString& engine)
    : QWidget(parent), flow_(new app::LabelGenerationFlow(this, engine)) {
  setObjectName(QStringLiteral("label_studio"));
  build();
  connect_toolbar();
  connect_flow();
  refresh_actions();
}

// Nothing painted is lost: a tab closed with unsaved edits saves them where
// Save would (beside the original, never over it).
LabelStudio::~LabelStudio() {
  if (editor_->label_overlay()->is_modified()) save();
}

void LabelStudio::build() {
  toolbar_ = new LabelEditToolbar(this);
  editor_ = new VolumeViewerWidget(this, slice_viewer_options());
  editor_->setObjectName(QStringLiteral("label_editor_viewer"));
  painter_ = new LabelPainter(editor_, this);
  painter_->set_label(toolbar_->label());
  painter_->set_radius_mm(toolbar_->radius_mm());

  result_pane_ = new QWidget(this);
  auto* result_layout = new QVBoxLayout(result_pane_);
  result_layout->setContentsMargins(0, 0, 0, 0);
  result_title_ = new QLabel(result_pane_);
  result_title_->setObjectName(QStringLiteral("label_result_title"));
  // A long path must not widen the window past a 1366-pixel screen.
  result_title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  result_ = new VolumeViewerWidget(result_pane_, slice_viewer_options());
  result_->setObjectName(QStringLiteral("label_result_viewer"));
  result_layout->addWidget(result_title_);
  result_layout->addWidget(result_, 1);
  result_pane_->hide();  // until the first generation

  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->addWidget(editor_);
  splitter_->addWidget(result_pane_);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("label_studio_status"));
  status_->setWordWrap(true);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(toolbar_);
  layout->addWidget(splitter_, 1);
  layout->addWidget(status_);

  // The toolbar's shortcuts (B, E, F, N, Ctrl+Z, Ctrl+Shift+Z) act while the
  // focus is anywhere in this studio, and only here: two studios in two tabs
  // do not fight over them.
  for (QAction* action : toolbar_->actions()) {
    action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(action);
  }
}

void LabelStudio::connect_toolbar() {
  connect(toolbar_, &LabelEditToolbar::tool_chosen, painter_, &LabelPainter::set_tool);
  connect(toolbar_, &LabelEditToolbar::label_chosen, painter_, &LabelPainter::set_label);
  connect(toolbar_, &LabelEditToolbar::radius_chosen, painter_, &LabelPainter::set_radius_mm);
  connect(toolbar_, &LabelEditToolbar::fill_between_slices_requested, painter_, &LabelPainter::fill_between_slices);
  connect(toolbar_, &LabelEditToolbar::undo_requested, painter_, &LabelPainter::undo);
  connect(toolbar_, &LabelEditToolbar::redo_requested, painter_, &LabelPainter::redo);
  connect(toolbar_, &LabelEditToolbar::save_requested, this, [this] { save(); });
  connect(toolbar_, &LabelEditToolbar::save_as_requested, this, &LabelStudio::save_as_dialog);
  connect(toolbar_, &LabelEditToolbar::run_dir_requested, this, &LabelStudio::run_dir_dialog);
  connect(toolbar_, &LabelEditToolbar::generate_requested, this, &LabelStudio::generate);
  connect(toolbar_, &LabelEditToolbar::regenerate_region_requested, this, &LabelStudio::regenerate_region);
  connect(painter_, &LabelPainter::tool_changed, toolbar_, &LabelEditToolbar::select_tool);
  connect(painter_, &LabelPainter::stroke_finished, this, [this] {
    refresh_actions();
    if (toolbar_->regenerate_after_edits() && !run_dir_.isEmpty()) generate();
  });
  connect(editor_->label_overlay(), &LabelOverlayController::edited, this, &LabelStudio::refresh_actions);
  connect(editor_->label_overlay(), &LabelOverlayController::changed, this, &LabelStudio::refresh_actions);
  connect(editor_, &VolumeViewerWidget::load_failed, this, [this](const QString& m) { show_status(m, true); });
  connect(editor_, &VolumeViewerWidget::label_map_failed, this, [this](const QString& m) { show_status(m, true); });
  // The result sits on the label's grid, the editor's: one crosshair for both.
  connect(editor_, &VolumeViewerWidget::cursor_changed, this, [this](const Vec3& world) {
    if (result_->has_volume()) result_->set_cursor(world);
  });
}

void LabelStudio::connect_flow() {
  connect(flow_, &app::LabelGenerationFlow::started, this,
          [this](app::RunController* run, const QStringList& arguments) {
            toolbar_->set_generating(true);
            show_status(tr("Generating from %1: %2 %3")
                            .arg(QFileInfo(generating_from_).fileName(), flow_->program(), arguments.join(' ')));
            connect(run->model(), &app::RunModel::progress_changed, this, [this, run] {
              if (run->model()->total_steps() > 0)
                show_status(tr("Generating from %1: step %2 of %3")
                                .arg(QFileInfo(generating_from_).fileName())
                                .arg(run->model()->current_step())
                                .arg(run->model()->total_steps()));
            });
            emit generation_started(run);
          });
  connect(flow_, &app::LabelGenerationFlow::succeeded, this, [this](const QString& image, const QString& label) {
    toolbar_->set_generating(flow_->is_running());
    result_path_ = image;
    result_->open_volume(image);  // its X_label sibling opens over it
    if (result_pane_->isHidden()) {
      result_pane_->show();
      const int half = splitter_->width() / 2;
      splitter_->setSizes({half, half});
    }
    result_title_->setText(
        tr("Generated from %1 · %2").arg(QFileInfo(generating_from_).fileName(), QDir::toNativeSeparators(image)));
    result_title_->setToolTip(image);
    show_status(tr("Generated %1").arg(image));
    emit generated(image, label);
  });
  connect(flow_, &app::LabelGenerationFlow::failed, this, [this](const QString& message) {
    toolbar_->set_generating(flow_->is_running());
    show_status(message, true);
    emit generation_failed(message);
  });
}

void LabelStudio::open(const QString& image_path, const QString& label_path) {
  image_path_ = image_path;
  editor_->open_volume(image_path);
  if (!label_path.isEmpty() && label_path != sibling_label_path(image_path)) {
    // The viewer opens the X_label sibling itself; another map waits for the image.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(editor_, &VolumeViewerWidget::volume_loaded, this, [this, label_path, connection] {
      disconnect(*connection);
      editor_->open_label_map(label_path);
    });
  }
  if (run_dir_.isEmpty()) set_run_dir(app::run_dir_of(image_path));
  show_status(tr("Opening %1").arg(image_path));
}

void LabelStudio::set_run_dir(const QString& run_dir) {
  run_dir_ = run_dir;
  toolbar_->set_run_dir(run_dir);
}

bool LabelStudio::save_to(const QString& path) {
  QString error;
  if (!editor_->label_overlay()->save(path, &error)) {
    show_status(error, true);
    return false;
  }
  show_status(tr("Saved %1").arg(path));
  return true;
}

QString LabelStudio::save() {
  LabelOverlayController* overlay = editor_->label_overlay();
  if (!overlay->has_labels()) {
    show_status(tr("There is no label map yet: paint with the Brush or open one (Label map…)"), true);
    return {};
  }
  const QString path = edited_label_path(overlay->path(), image_path_);
  return save_to(path) ? path : QString();
}

void LabelStudio::save_as_dialog() {
  LabelOverlayController* overlay = editor_->label_overlay();
  const QString suggested = edited_label_path(overlay->path(), image_path_);
  // QFileDialog asks before replacing an existing file: the user's own choice.
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save the label map"), suggested, tr("NIfTI (*.nii.gz *.nii)"));
  if (!path.isEmpty()) save_to(path);
}

void LabelStudio::run_dir_dialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("The MAISI run to generate with"), run_dir_);
  if (dir.isEmpty()) return;
  if (app::run_dir_of(dir) != QDir(dir).absolutePath()) {
    show_status(tr("%1 is not a run directory (it has no job.yaml); choose one import-maisi made").arg(dir), true);
    return;
  }
  set_run_dir(dir);
}

void LabelStudio::generate() { start_generation(false); }

void LabelStudio::regenerate_region() { start_generation(true); }

void LabelStudio::start_generation(bool region_only) {
  if (run_dir_.isEmpty()) {
    run_dir_dialog();
    if (run_dir_.isEmpty()) return;
  }
  LabelOverlayController* overlay = editor_->label_overlay();
  QString label = overlay->path();
  if (overlay->is_modified() || label.isEmpty()) label = save();
  if (label.isEmpty()) return;
  app::LabelGenerationRequest request;
  request.run_dir = run_dir_;
  request.label_map = label;
  request.output_dir = app::label_generation_output_dir(run_dir_, label, QDateTime::currentDateTime());
  if (region_only) {
    request.inpaint_image = image_path_;
    request.region_classes = {painter_->label()};
  }
  generating_from_ = label;
  if (flow_->is_running())
    show_status(tr("Generation from %1 waits for the one running").arg(QFileInfo(label).fileName()));
  flow_->request(request);
}

void LabelStudio::refresh_actions() {
  toolbar_->set_undo_redo(painter_->can_undo(), painter_->can_redo());
  LabelOverlayController* overlay = editor_->label_overlay();
  const QString name = overlay->path().isEmpty() ? tr("new label map") : QFileInfo(overlay->path()).fileName();
  setWindowTitle(overlay->is_modified() ? tr("%1 (modified)").arg(name) : name);
}

void LabelStudio::show_status(const QString& text, bool is_error) {
  status_->setText(text);
  status_->setStyleSheet(is_error ? QStringLiteral("color: #c0392b;") : QString());
}

QString LabelStudio::status_text() const { return status_->text(); }

}  // namespace medsynth::ui

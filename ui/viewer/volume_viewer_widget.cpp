#include "ui/viewer/volume_viewer_widget.hpp"

#include <cmath>
#include <stdexcept>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaMethod>
#include <QMimeData>
#include <QPainter>
#include <QPointer>
#include <QUrl>
#include <QVBoxLayout>

#include <vtkImageData.h>
#include <vtkMatrix4x4.h>
#include <vtkSmartPointer.h>

#include "data/label_vocabulary.hpp"
#include "ui/viewer/dicom_export_dialog.hpp"
#include "ui/viewer/label_map.hpp"
#include "ui/viewer/label_overlay_controller.hpp"
#include "ui/viewer/label_overlay_controls.hpp"
#include "ui/viewer/slice_scene.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/viewer_toolbar.hpp"
#include "ui/viewer/volume_scene.hpp"
#include "ui/viewer/vtk_volume_bridge.hpp"

namespace medsynth::ui {

QStringList ViewerOptions::validate() const {
  QStringList problems;
  if (const QString p = percentiles.validate(); !p.isEmpty()) problems << QStringLiteral("percentiles.") + p;
  if (read_options.max_voxels == 0) problems << QStringLiteral("read_options.max_voxels: must be > 0");
  if (read_options.max_bytes == 0) problems << QStringLiteral("read_options.max_bytes: must be > 0");
  return problems;
}

struct VolumeViewerWidget::Private {
  ViewerOptions options;
  VolumeLoader* loader = nullptr;
  ViewerToolbar* toolbar = nullptr;
  QLabel* message = nullptr;
  QLabel* status = nullptr;
  std::array<SliceView*, 3> slices{};
  VolumeRenderView* render_view = nullptr;
  LabelOverlayController* labels = nullptr;
  QString volume_text;  // the message line for the shown volume
  std::optional<GenerationProvenance> provenance;  // of the shown file, for DICOM export
  QPointer<DicomExportDialog> export_dialog;

  std::shared_ptr<const Volume> volume;
  QString label;
  VolumeGeometry geometry;
  IntensityStats stats;
  vtkSmartPointer<vtkImageData> image;
  vtkSmartPointer<vtkMatrix4x4> matrix;

  Vec3 cursor{0.0, 0.0, 0.0};
  WindowLevel window_level{1.0, 0.5};
  std::optional<WindowPreset> window_preset = WindowPreset::automatic;
  Colormap colormap = Colormap::grey;
  VolumePreset volume_preset = VolumePreset::mri;
  bool ct = false;  // recorded or guessed at load (the DICOM export's modality); not the 3D preset the user picks
  WindowLevel drag_start;
  QString error;
  bool message_is_error = false;
};

namespace {
std::size_t slot(SliceOrientation o) { return static_cast<std::size_t>(o); }

VoxelProbe probe_voxel_or_empty(const Volume* volume, const VolumeGeometry& geometry, const Vec3& world) {
  if (volume == nullptr) return VoxelProbe{false, {0, 0, 0}, world, 0.0f};
  return probe_voxel(*volume, geometry, world);
}
constexpr std::array<SliceOrientation, 3> k_orientations{SliceOrientation::axial, SliceOrientation::coronal,
                                                         SliceOrientation::sagittal};
}  // namespace

VolumeViewerWidget::VolumeViewerWidget(QWidget* parent, ViewerOptions options)
    : QWidget(parent), d_(std::make_unique<Private>()) {
  if (const QStringList problems = options.validate(); !problems.isEmpty())
    throw std::invalid_argument("ViewerOptions: " + problems.join(QStringLiteral("; ")).toStdString());
  qRegisterMetaType<medsynth::ui::Vec3>();
  qRegisterMetaType<medsynth::ui::VoxelProbe>();
  qRegisterMetaType<medsynth::ui::WindowLevel>();
  qRegisterMetaType<medsynth::ui::CameraState>();
  d_->options = options;
  d_->loader = new VolumeLoader(this, options.read_options, options.percentiles);
  connect(d_->loader, &VolumeLoader::loaded, this, &VolumeViewerWidget::show_loaded);
  connect(d_->loader, &VolumeLoader::failed, this, [this](const QString&, const QString& message) {
    d_->error = message;
    show_message(message, true);
    emit load_failed(message);
  });
  setAcceptDrops(options.accept_drops);
  build_views();
  show_message(options.accept_drops ? tr("Open or drop a NIfTI file (.nii, .nii.gz) or a DICOM folder.")
                                    : tr("No volume."),
               false);
}

VolumeViewerWidget::~VolumeViewerWidget() = default;

void VolumeViewerWidget::build_views() {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  if (d_->options.controls) {
    d_->toolbar = new ViewerToolbar(d_->options.volume_rendering, this);
    layout->addWidget(d_->toolbar);
    connect(d_->toolbar, &ViewerToolbar::window_preset_chosen, this, &VolumeViewerWidget::apply_window_preset);
    connect(d_->toolbar, &ViewerToolbar::colormap_chosen, this, &VolumeViewerWidget::set_colormap);
    connect(d_->toolbar, &ViewerToolbar::volume_preset_chosen, this, &VolumeViewerWidget::set_volume_preset);
    connect(d_->toolbar, &ViewerToolbar::reset_requested, this, &VolumeViewerWidget::reset_views);
    connect(d_->toolbar, &ViewerToolbar::screenshot_requested, this, [this] {
      // The console owns file dialogs: it connects screenshot_requested and
      // calls save_screenshot(). Alone, the viewer saves beside the volume.
      if (isSignalConnected(QMetaMethod::fromSignal(&VolumeViewerWidget::screenshot_requested))) {
        emit screenshot_requested();
        return;
      }
      const QString path = QFileInfo(d_->label).absolutePath() + QStringLiteral("/viewer-screenshot.png");
      QString error;
      if (save_screenshot(path, &error))
        show_message(tr("Screenshot saved to %1").arg(path), false);
      else
        show_message(error, true);
    });
    connect(d_->toolbar, &ViewerToolbar::export_dicom_requested, this, &VolumeViewerWidget::open_export_dialog);
  }
  d_->message = new QLabel(this);
  d_->message->setObjectName(QStringLiteral("viewer_message"));
  d_->message->setWordWrap(true);
  d_->message->setMargin(4);
  d_->message->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  d_->message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(d_->message);

  auto* grid = new QGridLayout();
  grid->setSpacing(2);
  for (SliceOrientation o : k_orientations) {
    auto* view = new SliceView(o, this);
    view->setObjectName(QStringLiteral("slice_") + orientation_name(o).toLower());
    d_->slices[slot(o)] = view;
    connect_slice_view(view);
  }
  d_->labels = new LabelOverlayController(d_->slices, d_->options.read_options, this);
  connect(d_->labels, &LabelOverlayController::loaded, this, [this](const QString& path) {
    show_message(tr("%1 — labels: %2").arg(d_->volume_text, QFileInfo(path).fileName()), false);
    update_status(probe_voxel_or_empty(d_->volume.get(), d_->geometry, d_->cursor));
    emit label_map_loaded(path);
  });
  connect(d_->labels, &LabelOverlayController::failed, this, [this](const QString& message) {
    show_message(message, true);
    emit label_map_failed(message);
  });
  if (d_->toolbar != nullptr) {
    LabelOverlayControls* controls = d_->toolbar->label_controls();
    connect(controls, &LabelOverlayControls::open_requested, this, &VolumeViewerWidget::open_label_map_dialog);
    connect(controls, &LabelOverlayControls::visible_toggled, this, &VolumeViewerWidget::set_labels_visible);
    connect(controls, &LabelOverlayControls::opacity_chosen, this, &VolumeViewerWidget::set_label_opacity);
    connect(d_->labels, &LabelOverlayController::changed, controls, [this, controls] {
      controls->show_state(d_->labels->has_labels(), d_->labels->visible(), d_->labels->opacity(), d_->labels->path());
    });
  }
  if (d_->options.volume_rendering) {
    d_->render_view = new VolumeRenderView(d_->options.ray_cast_mode, this);
    d_->render_view->setObjectName(QStringLiteral("volume_3d"));
    connect(d_->render_view, &VolumeRenderView::camera_changed, this, &VolumeViewerWidget::camera_changed);
    grid->addWidget(d_->slices[0], 0, 0);
    grid->addWidget(d_->slices[1], 0, 1);
    grid->addWidget(d_->slices[2], 1, 0);
    grid->addWidget(d_->render_view, 1, 1);
  } else {
    for (int i = 0; i < 3; ++i) grid->addWidget(d_->slices[static_cast<std::size_t>(i)], 0, i);
  }
  layout->addLayout(grid, 1);

  d_->status = new QLabel(this);
  d_->status->setObjectName(QStringLiteral("viewer_status"));
  d_->status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(d_->status);
}

void VolumeViewerWidget::connect_slice_view(SliceView* view) {
  const SliceOrientation o = view->orientation();
  connect(view, &SliceView::cursor_requested, this, &VolumeViewerWidget::set_cursor);
  connect(view, &SliceView::hovered, this, [this](const VoxelProbe& probe) {
    update_status(probe);
    emit voxel_hovered(probe);
  });
  connect(view, &SliceView::hover_left, this,
          [this] { update_status(probe_voxel_or_empty(d_->volume.get(), d_->geometry, d_->cursor)); });
  connect(view, &SliceView::scroll_requested, this, [this, o](int steps) { scroll_slice(o, steps); });
  connect(view, &SliceView::window_level_drag_started, this, [this] { d_->drag_start = d_->window_level; });
  connect(view, &SliceView::window_level_dragged, this, [this, view](double dx, double dy) {
    const double range = d_->stats.max - d_->stats.min;
    set_window_level(drag_window_level(d_->drag_start, dx, dy, range, view->height()));
  });
  connect(view, &SliceView::view_changed, this,
          [this, view, o] { emit slice_view_changed(o, view->zoom(), view->pan_center()); });
}

void VolumeViewerWidget::open_volume(const QString& path) {
  show_message(tr("Loading %1…").arg(path), false);
  d_->loader->load(path);
}

void VolumeViewerWidget::show_loaded(const LoadedVolume& loaded) {
  d_->error.clear();
  // Geometry first: a volume with unusable geometry is an error, not a crash.
  VolumeGeometry geometry;
  try {
    geometry = VolumeGeometry(*loaded.volume);
  } catch (const std::exception& e) {
    d_->error = QStringLiteral("%1: %2").arg(loaded.path, QString::fromStdString(e.what()));
    show_message(d_->error, true);
    emit load_failed(d_->error);
    return;
  }
  d_->volume = loaded.volume;
  d_->label = loaded.path;
  d_->provenance = loaded.provenance;
  if (d_->toolbar != nullptr) d_->toolbar->set_export_enabled(true);
  d_->geometry = geometry;
  d_->stats = loaded.stats;
  d_->image = make_image_data(*loaded.volume);
  d_->matrix = index_to_world_matrix(*loaded.volume);
  d_->cursor = d_->geometry.center();
  for (SliceView* view : d_->slices) {
    view->set_volume(d_->volume, d_->geometry, d_->image, d_->matrix);
    view->set_cursor(d_->cursor);
  }
  d_->labels->set_image(d_->volume, loaded.path, d_->matrix);
  const PresetChoice choice =
      choose_volume_preset(d_->stats, loaded.provenance ? loaded.provenance->modality : std::string());
  d_->volume_preset = choice.preset;
  d_->ct = choice.preset != VolumePreset::mri;
  if (d_->toolbar != nullptr) d_->toolbar->show_modality(choice.preset != VolumePreset::mri, choice.guessed);
  if (d_->render_view != nullptr) {
    d_->render_view->scene().set_preset(d_->volume_preset);
    d_->render_view->scene().set_image(d_->image, d_->matrix, d_->geometry, d_->stats);
    d_->render_view->render_progressively();
  }
  if (d_->toolbar != nullptr) d_->toolbar->show_volume_preset(d_->volume_preset);
  // Keep a chosen CT preset across volumes; "automatic" recomputes.
  const WindowPreset preset = d_->window_preset.value_or(WindowPreset::automatic);
  d_->window_level = WindowLevel{-1.0, 0.0};  // force the update below to apply and emit
  apply_window_preset(preset);
  QString text = QString::fromStdString(describe_volume(*d_->volume));
  if (!loaded.warnings.isEmpty()) text += QStringLiteral(" — ") + loaded.warnings.join(QStringLiteral("; "));
  d_->volume_text = QStringLiteral("%1 — %2").arg(QFileInfo(loaded.path).fileName(), text);
  show_message(d_->volume_text, false);
  update_status(probe_voxel_or_empty(d_->volume.get(), d_->geometry, d_->cursor));
  render_all();
  emit cursor_changed(d_->cursor);
  emit volume_loaded(loaded.path);
  // A generated pair (X_image.nii.gz, X_label.nii.gz): show both.
  if (const QString sibling = sibling_label_path(loaded.path); !sibling.isEmpty() && QFileInfo::exists(sibling))
    open_label_map(sibling);
}

void VolumeViewerWidget::set_volume(std::shared_ptr<const Volume> volume, const QString& label) {
  if (!volume) return clear();
  LoadedVolume loaded;
  loaded.path = label;
  loaded.stats = intensity_stats(volume->voxels.data(), volume->voxels.size(), d_->options.percentiles);
  loaded.volume = std::move(volume);
  show_loaded(loaded);
}

void VolumeViewerWidget::clear() {
  d_->volume.reset();
  d_->provenance.reset();
  if (d_->toolbar != nullptr) d_->toolbar->set_export_enabled(false);
  d_->image = nullptr;
  d_->label.clear();
  d_->labels->set_image(nullptr, QString(), nullptr);
  for (SliceView* view : d_->slices) view->clear_volume();
  if (d_->render_view != nullptr) d_->render_view->scene().clear_image();
  d_->status->clear();
  show_message(tr("No volume."), false);
  render_all();
}

DicomExportDialog* VolumeViewerWidget::open_export_dialog() {
  if (!d_->volume) return nullptr;
  if (d_->export_dialog) {
    d_->export_dialog->raise();
    d_->export_dialog->activateWindow();
    return d_->export_dialog;
  }
  auto source = app::make_dicom_export_source(d_->label, *d_->volume, d_->provenance, d_->ct);
  auto* dialog = new DicomExportDialog(d_->volume, std::move(source), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &DicomExportDialog::export_finished, this,
          [this](bool ok, const QString& message) { show_message(message, !ok); });
  d_->export_dialog = dialog;
  dialog->open();
  return dialog;
}

DicomExportDialog* VolumeViewerWidget::export_dialog() const { return d_->export_dialog; }

bool VolumeViewerWidget::has_volume() const { return d_->volume != nullptr; }
bool VolumeViewerWidget::is_loading() const { return d_->loader->is_loading(); }
std::shared_ptr<const Volume> VolumeViewerWidget::volume() const { return d_->volume; }
QString VolumeViewerWidget::volume_label() const { return d_->label; }
const IntensityStats& VolumeViewerWidget::intensity_statistics() const { return d_->stats; }
QString VolumeViewerWidget::message_text() const { return d_->message->isVisible() ? d_->message->text() : QString(); }
QString VolumeViewerWidget::error_text() const { return d_->error; }
QString VolumeViewerWidget::status_text() const { return d_->status->text(); }
WindowLevel VolumeViewerWidget::window_level() const { return d_->window_level; }
std::optional<WindowPreset> VolumeViewerWidget::window_preset() const { return d_->window_preset; }
Colormap VolumeViewerWidget::colormap() const { return d_->colormap; }
VolumePreset VolumeViewerWidget::volume_preset() const { return d_->volume_preset; }
Vec3 VolumeViewerWidget::cursor() const { return d_->cursor; }
SliceView* VolumeViewerWidget::slice_view(SliceOrientation o) const { return d_->slices[slot(o)]; }
VolumeRenderView* VolumeViewerWidget::volume_view() const { return d_->render_view; }
ViewerToolbar* VolumeViewerWidget::toolbar() const { return d_->toolbar; }
LabelOverlayController* VolumeViewerWidget::label_overlay() const { return d_->labels; }
bool VolumeViewerWidget::has_label_map() const { return d_->labels->has_labels(); }
QString VolumeViewerWidget::label_map_path() const { return d_->labels->path(); }
void VolumeViewerWidget::clear_label_map() { d_->labels->clear(); }
void VolumeViewerWidget::set_label_opacity(double opacity) { d_->labels->set_opacity(opacity); }
void VolumeViewerWidget::set_labels_visible(bool visible) { d_->labels->set_visible(visible); }

void VolumeViewerWidget::open_label_map(const QString& path) {
  if (!d_->volume) {
    const QString message = tr("label map %1: open an image first; a label map is drawn over an image").arg(path);
    show_message(message, true);
    emit label_map_failed(message);
    return;
  }
  show_message(tr("Loading label map %1…").arg(path), false);
  d_->labels->open(path);
}

bool VolumeViewerWidget::set_label_map(std::shared_ptr<const Volume> labels, const QString& label, QString* error) {
  QString problem;
  if (d_->labels->set_labels(std::move(labels), label, &problem)) {
    show_message(tr("%1 — labels: %2").arg(d_->volume_text, QFileInfo(label).fileName()), false);
    return true;
  }
  show_message(problem, true);
  if (error) *error = problem;
  return false;
}

void VolumeViewerWidget::open_label_map_dialog() {
  const QString start = d_->label.isEmpty() ? QString() : QFileInfo(d_->label).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a label map"), start,
                                                    tr("Label maps (*.nii *.nii.gz);;All files (*)"));
  if (!path.isEmpty()) open_label_map(path);
}

void VolumeViewerWidget::show_message(const QString& text, bool is_error) {
  d_->message_is_error = is_error;
  d_->message->setText(text);
  d_->message->setStyleSheet(is_error ? QStringLiteral("QLabel { color: #ffffff; background: #b3261e; }") : QString());
  d_->message->setVisible(!text.isEmpty());
}

void VolumeViewerWidget::apply_window_preset(WindowPreset preset) {
  d_->window_preset = preset;
  const WindowLevel wl = preset == WindowPreset::automatic ? percentile_window_level(d_->stats)
                                                           : window_preset_info(preset).window_level;
  if (d_->toolbar != nullptr) d_->toolbar->show_window_preset(preset);
  if (wl == d_->window_level) return;
  d_->window_level = wl;
  for (SliceView* view : d_->slices) view->set_window_level(wl);
  if (d_->toolbar != nullptr) d_->toolbar->set_window_level_text(wl);
  emit window_level_changed(wl);
}

void VolumeViewerWidget::set_window_level(const WindowLevel& window_level) {
  if (!(window_level.window > 0.0) || !std::isfinite(window_level.level)) return;
  if (window_level == d_->window_level) return;
  d_->window_level = window_level;
  d_->window_preset.reset();
  for (const auto& info : window_presets())
    if (info.preset != WindowPreset::automatic && info.window_level == window_level) d_->window_preset = info.preset;
  if (d_->toolbar != nullptr) {
    d_->toolbar->show_window_preset(d_->window_preset);
    d_->toolbar->set_window_level_text(window_level);
  }
  for (SliceView* view : d_->slices) view->set_window_level(window_level);
  emit window_level_changed(window_level);
}

void VolumeViewerWidget::set_colormap(Colormap map) {
  if (map == d_->colormap) return;
  d_->colormap = map;
  for (SliceView* view : d_->slices) view->set_colormap(map);
  if (d_->toolbar != nullptr) d_->toolbar->show_colormap(map);
  emit colormap_changed(map);
}

void VolumeViewerWidget::set_volume_preset(VolumePreset preset) {
  d_->volume_preset = preset;
  if (d_->toolbar != nullptr) d_->toolbar->show_volume_preset(preset);
  if (d_->render_view == nullptr) return;
  d_->render_view->scene().set_preset(preset);
  d_->render_view->render_progressively();
}

void VolumeViewerWidget::set_cursor(const Vec3& world) {
  if (!d_->volume) return;
  const Vec3 snapped = d_->geometry.voxel_center(d_->geometry.clamp(d_->geometry.nearest_index(world)));
  if (snapped == d_->cursor) return;
  d_->cursor = snapped;
  for (SliceView* view : d_->slices) view->set_cursor(snapped);
  update_status(probe_voxel_or_empty(d_->volume.get(), d_->geometry, snapped));
  emit cursor_changed(snapped);
}

void VolumeViewerWidget::scroll_slice(SliceOrientation orientation, int steps) {
  if (!d_->volume || steps == 0) return;
  const Vec3 normal = view_axes(orientation).projection;
  const double step = d_->geometry.slice_step(normal);
  set_cursor(add(d_->cursor, scale(normal, step * steps)));
}

VoxelProbe VolumeViewerWidget::probe(SliceOrientation orientation, const QPointF& position) const {
  return slice_view(orientation)->probe_at(position);
}

CameraState VolumeViewerWidget::camera() const {
  return d_->render_view != nullptr ? d_->render_view->camera() : CameraState{};
}

void VolumeViewerWidget::set_camera(const CameraState& state) {
  if (d_->render_view == nullptr || nearly_equal(state, d_->render_view->camera())) return;
  d_->render_view->set_camera(state);
}

void VolumeViewerWidget::set_slice_view_state(SliceOrientation orientation, double zoom, const Vec3& pan_center) {
  SliceView* view = slice_view(orientation);
  if (std::abs(view->zoom() - zoom) < 1e-12 && view->pan_center() == pan_center) return;
  view->set_zoom(zoom);
  view->set_pan_center(pan_center);
}

void VolumeViewerWidget::reset_views() {
  for (SliceView* view : d_->slices) {
    view->reset_view();
    emit slice_view_changed(view->orientation(), view->zoom(), view->pan_center());
  }
  if (d_->render_view != nullptr) {
    d_->render_view->reset_camera();
    emit camera_changed(d_->render_view->camera());
  }
}

void VolumeViewerWidget::render_all() {
  for (SliceView* view : d_->slices) view->request_render();
  if (d_->render_view != nullptr) d_->render_view->request_render();
}

void VolumeViewerWidget::update_status(const VoxelProbe& probe) {
  QString text;
  if (d_->volume) {
    const QString position = QStringLiteral("LPS (%1, %2, %3) mm")
                                 .arg(probe.world[0], 0, 'f', 1)
                                 .arg(probe.world[1], 0, 'f', 1)
                                 .arg(probe.world[2], 0, 'f', 1);
    // CT values are Hounsfield units; MR has none to name (issue 53 item 10).
    const QString unit = d_->ct ? QStringLiteral(" HU") : QString();
    text = probe.inside ? QStringLiteral("voxel [%1, %2, %3]  value %4%5  %6")
                              .arg(probe.index[0])
                              .arg(probe.index[1])
                              .arg(probe.index[2])
                              .arg(static_cast<double>(probe.value), 0, 'g', 6)
                              .arg(unit, position)
                        : QStringLiteral("outside the volume  %1").arg(position);
    if (const auto label = probe.inside ? d_->labels->label_at(probe.index) : std::nullopt) {
      text += QStringLiteral("  label %1").arg(*label);
      const auto& classes = maisi_ct_classes();
      if (const auto known = classes.find(*label); known != classes.end())
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(known->second));
    }
  }
  if (text == d_->status->text()) return;
  d_->status->setText(text);
  emit status_text_changed(text);
}

QImage VolumeViewerWidget::grab_views() {
  std::vector<VtkOpenGLWidget*> views(d_->slices.begin(), d_->slices.end());
  if (d_->render_view != nullptr) views.push_back(d_->render_view);
  const int columns = d_->render_view != nullptr ? 2 : 3;
  std::vector<QImage> frames;
  int cell_w = 0, cell_h = 0;
  for (auto* view : views) {
    frames.push_back(view->grab_frame());
    cell_w = std::max(cell_w, frames.back().width());
    cell_h = std::max(cell_h, frames.back().height());
  }
  if (cell_w == 0 || cell_h == 0) return {};
  const int rows = (static_cast<int>(frames.size()) + columns - 1) / columns;
  QImage out(cell_w * columns, cell_h * rows, QImage::Format_RGB32);
  out.fill(Qt::black);
  QPainter painter(&out);
  for (std::size_t i = 0; i < frames.size(); ++i)
    painter.drawImage(static_cast<int>(i) % columns * cell_w, static_cast<int>(i) / columns * cell_h, frames[i]);
  return out;
}

bool VolumeViewerWidget::save_screenshot(const QString& png_path, QString* error) {
  const QImage image = grab_views();
  if (image.isNull()) {
    if (error) *error = tr("%1: nothing to save (the views are not shown yet)").arg(png_path);
    return false;
  }
  if (!image.save(png_path, "PNG")) {
    if (error) *error = tr("%1: cannot write the PNG file").arg(png_path);
    return false;
  }
  return true;
}

QString dropped_volume_path(const QMimeData* mime) {
  if (mime == nullptr || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls()) {
    if (!url.isLocalFile()) continue;
    const QFileInfo info(url.toLocalFile());
    if (info.exists()) return info.absoluteFilePath();
  }
  return {};
}

void VolumeViewerWidget::dragEnterEvent(QDragEnterEvent* event) {
  if (!dropped_volume_path(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void VolumeViewerWidget::dragMoveEvent(QDragMoveEvent* event) {
  if (!dropped_volume_path(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void VolumeViewerWidget::dropEvent(QDropEvent* event) {
  const QString path = dropped_volume_path(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  open_volume(path);
}

}  // namespace medsynth::ui

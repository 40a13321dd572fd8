#include "ui/viewer/compare_widget.hpp"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/viewer/volume_difference.hpp"

namespace medsynth::ui {

CompareWidget::CompareWidget(QWidget* parent, ViewerOptions options) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* vertical = new QSplitter(Qt::Vertical, this);
  layout->addWidget(vertical);
  auto* pair = new QSplitter(Qt::Horizontal, vertical);
  a_ = new VolumeViewerWidget(pair, options);
  a_->setObjectName(QStringLiteral("compare_a"));
  b_ = new VolumeViewerWidget(pair, options);
  b_->setObjectName(QStringLiteral("compare_b"));
  pair->addWidget(a_);
  pair->addWidget(b_);

  auto* bottom = new QWidget(vertical);
  auto* bottom_layout = new QVBoxLayout(bottom);
  bottom_layout->setContentsMargins(0, 0, 0, 0);
  difference_label_ = new QLabel(bottom);
  difference_label_->setObjectName(QStringLiteral("difference_message"));
  difference_label_->setWordWrap(true);
  bottom_layout->addWidget(difference_label_);
  ViewerOptions diff_options = options;
  diff_options.volume_rendering = false;  // a signed difference has no meaningful 3D rendering
  diff_options.controls = false;
  diff_options.accept_drops = false;
  difference_ = new VolumeViewerWidget(bottom, diff_options);
  difference_->setObjectName(QStringLiteral("compare_difference"));
  bottom_layout->addWidget(difference_, 1);
  vertical->addWidget(pair);
  vertical->addWidget(bottom);
  vertical->setStretchFactor(0, 2);
  vertical->setStretchFactor(1, 1);

  link(a_, {b_, difference_}, true);
  link(b_, {a_, difference_}, true);
  link(difference_, {a_, b_}, false);
  for (VolumeViewerWidget* side : {a_, b_}) {
    connect(side, &VolumeViewerWidget::volume_loaded, this, &CompareWidget::update_difference);
    connect(side, &VolumeViewerWidget::load_failed, this, &CompareWidget::update_difference);
  }
  update_difference();
}

CompareWidget::~CompareWidget() = default;

template <typename F>
void CompareWidget::propagate(F&& apply) {
  if (linking_) return;  // the change came from this very propagation
  linking_ = true;
  apply();
  linking_ = false;
}

void CompareWidget::link(VolumeViewerWidget* from, const QList<VolumeViewerWidget*>& to, bool display_settings) {
  connect(from, &VolumeViewerWidget::cursor_changed, this, [this, to](const Vec3& world) {
    propagate([&] {
      for (auto* v : to) v->set_cursor(world);
    });
  });
  connect(from, &VolumeViewerWidget::slice_view_changed, this,
          [this, to](SliceOrientation o, double zoom, const Vec3& pan) {
            propagate([&] {
              for (auto* v : to) v->set_slice_view_state(o, zoom, pan);
            });
          });
  if (!display_settings) return;
  // Window/level, colours and the 3D camera link A and B only: the
  // difference image has its own signed window and diverging colours.
  QList<VolumeViewerWidget*> peers;
  for (auto* v : to)
    if (v != difference_) peers << v;
  connect(from, &VolumeViewerWidget::window_level_changed, this, [this, peers](const WindowLevel& wl) {
    propagate([&] {
      for (auto* v : peers) v->set_window_level(wl);
    });
  });
  connect(from, &VolumeViewerWidget::colormap_changed, this, [this, peers](Colormap map) {
    propagate([&] {
      for (auto* v : peers) v->set_colormap(map);
    });
  });
  connect(from, &VolumeViewerWidget::camera_changed, this, [this, peers](const CameraState& camera) {
    propagate([&] {
      for (auto* v : peers) v->set_camera(camera);
    });
  });
}

void CompareWidget::open_volumes(const QString& path_a, const QString& path_b) {
  open_a(path_a);
  open_b(path_b);
}

void CompareWidget::open_a(const QString& path) { a_->open_volume(path); }
void CompareWidget::open_b(const QString& path) { b_->open_volume(path); }

void CompareWidget::set_volumes(std::shared_ptr<const Volume> a, const QString& label_a,
                                std::shared_ptr<const Volume> b, const QString& label_b) {
  a_->set_volume(std::move(a), label_a);
  b_->set_volume(std::move(b), label_b);
}

QString CompareWidget::difference_message() const { return difference_label_->text(); }

void CompareWidget::update_difference() {
  const auto a = a_->volume();
  const auto b = b_->volume();
  difference_available_ = false;
  max_abs_ = 0.0;
  QString message;
  if (!a_->error_text().isEmpty() || !b_->error_text().isEmpty()) {
    message = tr("No difference image: %1 could not be opened.")
                  .arg(!a_->error_text().isEmpty() ? QStringLiteral("A") : QStringLiteral("B"));
  } else if (!a || !b) {
    message = tr("Open a volume on each side to see A − B.");
  } else {
    const DifferenceResult diff = difference_volume(*a, *b);
    if (!diff.volume) {
      message = tr("No difference image: the grids differ (%1).").arg(diff.error);
    } else {
      difference_available_ = true;
      max_abs_ = diff.max_abs;
      difference_->set_volume(diff.volume, tr("A − B"));
      difference_->set_colormap(Colormap::diverging);
      // Symmetric around 0 so that white means "equal", blue A<B, red A>B.
      difference_->set_window_level({diff.max_abs > 0.0 ? 2.0 * diff.max_abs : 1.0, 0.0});
      difference_->set_cursor(a_->cursor());
      message = tr("A − B (blue: A < B, red: A > B), max |A − B| = %1").arg(diff.max_abs, 0, 'g', 4);
    }
  }
  if (!difference_available_) difference_->clear();
  difference_label_->setText(message);
  emit difference_updated(difference_available_);
}

}  // namespace medsynth::ui

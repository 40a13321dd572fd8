#include "ui/viewer/label_edit_toolbar.hpp"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QPixmap>

#include "data/label_vocabulary.hpp"
#include "ui/viewer/label_map.hpp"

namespace medsynth::ui {

namespace {

QIcon swatch(int value) {
  QPixmap pixmap(12, 12);
  const Rgb c = label_color(label_slot(static_cast<float>(value)));
  pixmap.fill(QColor::fromRgbF(static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2])));
  return QIcon(pixmap);
}

struct ToolRow {
  LabelTool tool;
  const char* name;
  const char* text;
  const char* shortcut;
  const char* tip;
};

constexpr ToolRow k_tools[] = {
    {LabelTool::navigate, "tool_navigate", "Navigate", "N", "Left button moves the crosshair"},
    {LabelTool::brush, "tool_brush", "Brush", "B", "Paint the chosen label in a disc on the slice under the mouse"},
    {LabelTool::eraser, "tool_eraser", "Eraser", "E", "Set a disc of the slice back to 0 (background)"},
    {LabelTool::fill, "tool_fill", "Fill", "F",
     "Fill the connected region of the clicked label on this slice with the chosen label"},
    {LabelTool::sphere, "tool_sphere", "Sphere", "S",
     "Paint the chosen label in a ball of the brush radius around the voxel under the mouse (3D)"},
};

}  // namespace

LabelEditToolbar::LabelEditToolbar(QWidget* parent) : QToolBar(tr("Label editing"), parent) {
  setObjectName(QStringLiteral("label_edit_toolbar"));
  auto* group = new QActionGroup(this);
  group->setExclusive(true);
  for (const ToolRow& row : k_tools) {
    QAction* action = addAction(tr(row.text));
    action->setObjectName(QString::fromLatin1(row.name));
    action->setCheckable(true);
    action->setShortcut(QKeySequence(QString::fromLatin1(row.shortcut)));
    action->setToolTip(tr(row.tip));
    group->addAction(action);
    tools_[static_cast<int>(row.tool)] = action;
    connect(action, &QAction::triggered, this, [this, tool = row.tool] { emit tool_chosen(tool); });
  }
  tools_[static_cast<int>(LabelTool::navigate)]->setChecked(true);

  addSeparator();
  addWidget(new QLabel(tr(" Label: "), this));
  label_box_ = new QComboBox(this);
  label_box_->setObjectName(QStringLiteral("label_value"));
  label_box_->setToolTip(tr("The class the brush and fill write: MAISI CT's vocabulary (200: the body envelope)"));
  for (const auto& [id, name] : maisi_ct_classes())
    label_box_->addItem(swatch(id), QStringLiteral("%1 %2").arg(id).arg(QString::fromStdString(name)), id);
  addWidget(label_box_);
  connect(label_box_, &QComboBox::activated, this, [this] { emit label_chosen(label()); });

  addWidget(new QLabel(tr(" Radius: "), this));
  radius_ = new QDoubleSpinBox(this);
  radius_->setObjectName(QStringLiteral("brush_radius"));
  radius_->setRange(0.0, 100.0);
  radius_->setDecimals(1);
  radius_->setSingleStep(1.0);
  radius_->setSuffix(tr(" mm"));
  radius_->setValue(3.0);
  radius_->setToolTip(tr("The brush and eraser radius on the slice (0: one voxel)"));
  addWidget(radius_);
  connect(radius_, &QDoubleSpinBox::valueChanged, this, &LabelEditToolbar::radius_chosen);

  fill_between_ = addAction(tr("Fill between slices"), this, &LabelEditToolbar::fill_between_slices_requested);
  fill_between_->setObjectName(QStringLiteral("fill_between_slices"));
  fill_between_->setToolTip(
      tr("Give the slices between painted ones of the chosen label the shape that morphs from one to the next "
         "(along the last painted view's axis; only background voxels change; one undo step)"));

  addSeparator();
  undo_ = addAction(tr("Undo"), this, &LabelEditToolbar::undo_requested);
  undo_->setShortcut(QKeySequence::Undo);
  redo_ = addAction(tr("Redo"), this, &LabelEditToolbar::redo_requested);
  redo_->setShortcut(QKeySequence::Redo);
  set_undo_redo(false, false);
  save_ = addAction(tr("Save labels"), this, &LabelEditToolbar::save_requested);
  // No Ctrl+S: the main window's "Save job" has it, and two window-wide
  // shortcuts on one key would both be ambiguous (neither fires).
  save_->setToolTip(
      tr("Write the label map as NIfTI beside the one it came from (…-edited.nii.gz); the original is kept"));
  save_as_ = addAction(tr("Save as…"), this, &LabelEditToolbar::save_as_requested);

  addSeparator();
  run_ = addAction(tr("MAISI run…"), this, &LabelEditToolbar::run_dir_requested);
  run_->setObjectName(QStringLiteral("maisi_run"));
  generate_ = addAction(tr("Generate from this label"), this, &LabelEditToolbar::generate_requested);
  generate_->setObjectName(QStringLiteral("generate_from_label"));
  generate_->setToolTip(tr("Save the map and run generate --label with the chosen MAISI run; the result opens beside"));
  regenerate_ = addAction(tr("Regenerate after each edit"));
  regenerate_->setObjectName(QStringLiteral("regenerate_after_edits"));
  regenerate_->setCheckable(true);
  regenerate_region_ = addAction(tr("Regenerate this region"), this, &LabelEditToolbar::regenerate_region_requested);
  regenerate_region_->setObjectName(QStringLiteral("regenerate_region"));
  regenerate_region_->setToolTip(
      tr("Save the map and make the current label's voxels of this image again with the chosen MAISI run "
         "(generate --inpaint); every other voxel stays as it is"));
  set_run_dir({});
}

LabelTool LabelEditToolbar::tool() const {
  for (const ToolRow& row : k_tools)
    if (tools_[static_cast<int>(row.tool)]->isChecked()) return row.tool;
  return LabelTool::navigate;
}

int LabelEditToolbar::label() const { return label_box_->currentData().toInt(); }

double LabelEditToolbar::radius_mm() const { return radius_->value(); }

bool LabelEditToolbar::regenerate_after_edits() const { return regenerate_->isChecked(); }

QAction* LabelEditToolbar::tool_action(LabelTool tool) const { return tools_[static_cast<int>(tool)]; }

void LabelEditToolbar::select_label(int value) {
  int row = label_box_->findData(value);
  if (row < 0) {
    label_box_->addItem(swatch(value), tr("%1 (not in MAISI CT)").arg(value), value);
    row = label_box_->count() - 1;
  }
  label_box_->setCurrentIndex(row);
}

void LabelEditToolbar::select_tool(LabelTool tool) { tool_action(tool)->setChecked(true); }

void LabelEditToolbar::set_undo_redo(bool can_undo, bool can_redo) {
  undo_->setEnabled(can_undo);
  redo_->setEnabled(can_redo);
}

void LabelEditToolbar::set_run_dir(const QString& run_dir) {
  run_->setText(run_dir.isEmpty() ? tr("MAISI run…") : tr("Run: %1").arg(QFileInfo(run_dir).fileName()));
  run_->setToolTip(run_dir.isEmpty() ? tr("Choose the MAISI run (an import-maisi run directory) to generate with")
                                     : run_dir);
}

void LabelEditToolbar::set_generating(bool generating) {
  generate_->setText(generating ? tr("Generating…") : tr("Generate from this label"));
}

}  // namespace medsynth::ui

// The label editor's controls (issue 39.2), one QToolBar that overflows like
// the viewer's: the tools (Navigate, Brush, Eraser, Fill), the label to
// paint (MAISI CT's classes by name, each with its overlay colour), the brush
// radius in mm, Undo/Redo, Save and Save as…, the MAISI run to generate
// with, "Generate from this label" and "Regenerate after each edit". Emits
// what the user picked; LabelStudio acts on it. No state of its own beyond
// what it shows.
#pragma once

#include <QToolBar>

#include "ui/viewer/label_edits.hpp"

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace medsynth::ui {

class LabelEditToolbar : public QToolBar {
  Q_OBJECT

 public:
  explicit LabelEditToolbar(QWidget* parent = nullptr);

  LabelTool tool() const;
  int label() const;  // the chosen class's value
  double radius_mm() const;
  bool regenerate_after_edits() const;

  // Shows `value` as the chosen label (added as "value (not in MAISI CT)"
  // when the vocabulary has no such class).
  void select_label(int value);
  void select_tool(LabelTool tool);
  void set_undo_redo(bool can_undo, bool can_redo);
  void set_run_dir(const QString& run_dir);  // shown on the run button (empty: none chosen)
  void set_generating(bool generating);

  QAction* tool_action(LabelTool tool) const;
  QComboBox* label_box() const { return label_box_; }
  QDoubleSpinBox* radius_box() const { return radius_; }
  QAction* undo_action() const { return undo_; }
  QAction* redo_action() const { return redo_; }
  QAction* save_action() const { return save_; }
  QAction* save_as_action() const { return save_as_; }
  QAction* run_action() const { return run_; }
  QAction* generate_action() const { return generate_; }
  QAction* regenerate_action() const { return regenerate_; }
  QAction* regenerate_region_action() const { return regenerate_region_; }

 signals:
  void tool_chosen(medsynth::ui::LabelTool tool);
  void label_chosen(int value);
  void radius_chosen(double radius_mm);
  void fill_between_slices_requested();
  void undo_requested();
  void redo_requested();
  void save_requested();
  void save_as_requested();
  void run_dir_requested();
  void generate_requested();
  void regenerate_region_requested();

 private:
  QAction* tools_[5] = {};  // by LabelTool
  QAction* fill_between_ = nullptr;
  QComboBox* label_box_ = nullptr;
  QDoubleSpinBox* radius_ = nullptr;
  QAction* undo_ = nullptr;
  QAction* redo_ = nullptr;
  QAction* save_ = nullptr;
  QAction* save_as_ = nullptr;
  QAction* run_ = nullptr;
  QAction* generate_ = nullptr;
  QAction* regenerate_ = nullptr;
  QAction* regenerate_region_ = nullptr;
};

}  // namespace medsynth::ui

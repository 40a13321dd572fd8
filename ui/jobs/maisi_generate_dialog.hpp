// "Generate CT from MAISI weights" (issue 17.5): a dialog to pick an
// NV-Generate-CTMR download (checked for configs/config_network_*.json and
// models/ as soon as it is typed), the model, an optional label map, output
// size and spacing, images and processes, and the runs folder; it shows the
// two engine commands it will run, then their progress, and emits generated()
// with the image (and its label) so that the main window opens them in the
// viewer. The work is app::MaisiGenerateFlow; this is only the form. Opened
// from the main window's File menu; non-modal.
#pragma once

#include <QDialog>

#include "app/session/maisi_generate_flow.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QDialogButtonBox;
class QFormLayout;
class QPushButton;
class QSpinBox;
class QToolButton;
QT_END_NAMESPACE

namespace medsynth::ui {

class MaisiGenerateDialog : public QDialog {
  Q_OBJECT

 public:
  // runs_dir: where new run directories go; processes: this machine's default
  // (the Machine panel's); engine: empty = the console's engine.
  MaisiGenerateDialog(const QString& runs_dir, int processes, QWidget* parent = nullptr, const QString& engine = {});

  // The request the form describes now (run_dir: a fresh name under the runs folder).
  app::MaisiGenerateRequest request() const;
  // "field: reason" lines of request() (shown under the form).
  QStringList problems() const;
  app::MaisiGenerateFlow* flow() const { return flow_; }

  QLineEdit* folder_edit() const { return folder_; }
  QComboBox* model_box() const { return model_; }
  QLineEdit* label_edit() const { return label_; }
  QLineEdit* runs_dir_edit() const { return runs_dir_; }
  QSpinBox* size_box(int axis) const { return size_[axis]; }
  QDoubleSpinBox* spacing_box(int axis) const { return spacing_[axis]; }
  QSpinBox* images_box() const { return images_; }
  QSpinBox* modality_box() const { return modality_; }
  QDoubleSpinBox* guidance_box() const { return guidance_; }
  QSpinBox* processes_box() const { return processes_; }
  QLineEdit* finetune_edit() const { return finetune_; }
  QSpinBox* finetune_steps_box() const { return finetune_steps_; }
  QPushButton* generate_button() const { return generate_; }
  QString problems_text() const;
  QString commands_text() const;
  QString log_text() const;

 signals:
  void generated(const QString& image_path, const QString& label_path);

 private:
  QFormLayout* build_inputs(const QString& runs_dir, int processes);
  QWidget* build_folder_input();     // the NV-Generate folder; returns its row
  QWidget* build_label_input();      // the label map; returns its row
  QWidget* build_finetune_inputs();  // the fine-tuning volumes (returns their row) and steps
  void build_layout(QFormLayout* form);
  void connect_inputs();
  void connect_flow();
  void refresh();  // problems, command preview, buttons
  void start();
  void append_log(const QString& line);
  QString browse_file(const QString& title, QLineEdit* edit, bool folder);

  app::MaisiGenerateFlow* flow_ = nullptr;
  QLineEdit* folder_ = nullptr;
  QComboBox* model_ = nullptr;
  QLineEdit* label_ = nullptr;
  QSpinBox* size_[3] = {};
  QDoubleSpinBox* spacing_[3] = {};
  QSpinBox* images_ = nullptr;
  QSpinBox* modality_ = nullptr;        // -1: the model's own (import-maisi's)
  QDoubleSpinBox* guidance_ = nullptr;  // -1: the model's own
  QSpinBox* processes_ = nullptr;
  QLineEdit* finetune_ = nullptr;  // empty: generate from the released weights
  QSpinBox* finetune_steps_ = nullptr;
  QToolButton* finetune_browse_ = nullptr;
  QLineEdit* runs_dir_ = nullptr;
  QLabel* problems_ = nullptr;
  QPlainTextEdit* commands_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QPushButton* generate_ = nullptr;
  QPushButton* stop_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QToolButton* folder_browse_ = nullptr;
  QToolButton* label_browse_ = nullptr;
  QToolButton* runs_browse_ = nullptr;
  QString engine_error_;  // the last run's failure, shown until the next run
};

}  // namespace medsynth::ui

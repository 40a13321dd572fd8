// "Synthetic dataset" (issue 39.5): a dialog for a labelled synthetic CT
// dataset made in one place: the MAISI run, the label source (a folder of
// label maps, prepared or painted in the label editor, or segmentations to
// prepare from TotalSegmentator, VISTA3D or a map file), the number of cases
// and the first seed, the quality check on or off (its statistics file and
// tries), the memorization audit on or off (the training CT), the export
// format (NIfTI pairs, or with DICOM CT + SEG) and the dataset folder. It
// shows what is wrong with the form as it is typed, then one row per case
// whose state and result (the quality check's verdict, the files) change as
// the engine works, and the engine's lines. The work is
// app::SyntheticDatasetFlow; this is only the form. Non-modal, from the
// main window's File menu.
#pragma once

#include <QDialog>

#include "app/session/synthetic_dataset_flow.hpp"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
QT_END_NAMESPACE

namespace medsynth::ui {

class SyntheticDatasetDialog : public QDialog {
  Q_OBJECT

 public:
  // runs_dir: where the dataset folder is suggested; engine: empty = the console's.
  explicit SyntheticDatasetDialog(const QString& runs_dir, QWidget* parent = nullptr, const QString& engine = {});

  app::SyntheticDatasetRequest request() const;
  QString problems_text() const;
  app::SyntheticDatasetFlow* flow() const { return flow_; }

  QLineEdit* run_edit() const { return run_; }
  QComboBox* source_box() const { return source_; }
  QComboBox* format_box() const { return format_; }
  QLineEdit* labels_edit() const { return labels_; }
  QSpinBox* cases_box() const { return cases_; }
  QSpinBox* seed_box() const { return seed_; }
  QCheckBox* quality_check() const { return quality_; }
  QLineEdit* statistics_edit() const { return statistics_; }
  QSpinBox* tries_box() const { return tries_; }
  QCheckBox* audit_check() const { return audit_; }
  QLineEdit* train_edit() const { return train_; }
  QComboBox* export_box() const { return export_; }
  QLineEdit* output_edit() const { return output_; }
  QPushButton* start_button() const { return start_; }
  QPushButton* stop_button() const { return stop_; }
  QTableWidget* cases_table() const { return table_; }
  QString summary_text() const;
  QString log_text() const;

 signals:
  // The dataset is made: its card (dataset-card.md).
  void dataset_written(const QString& card_path);

 private:
  void build(const QString& runs_dir);
  void build_inputs(const QString& runs_dir);
  void build_progress_views();
  void connect_inputs();
  void connect_flow();
  void refresh();
  void start();
  void show_plan();
  QWidget* with_browse(QLineEdit* edit, bool folder);

  app::SyntheticDatasetFlow* flow_ = nullptr;
  QLineEdit* run_ = nullptr;
  QComboBox* source_ = nullptr;
  QComboBox* format_ = nullptr;
  QLineEdit* labels_ = nullptr;
  QSpinBox* cases_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QCheckBox* quality_ = nullptr;
  QLineEdit* statistics_ = nullptr;
  QSpinBox* tries_ = nullptr;
  QCheckBox* audit_ = nullptr;
  QLineEdit* train_ = nullptr;
  QComboBox* export_ = nullptr;
  QLineEdit* output_ = nullptr;
  QLabel* problems_ = nullptr;
  QLabel* summary_ = nullptr;
  QTableWidget* table_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
};

}  // namespace medsynth::ui

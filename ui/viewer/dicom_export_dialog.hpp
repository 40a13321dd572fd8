// "Export DICOM…" of the volume viewer: output folder (Browse…), modality,
// patient name/ID, series description and a read-only summary of what will
// be written; Export runs the engine's write_dicom_series on QtConcurrent's
// pool through app/export/dicom_export_plan.hpp (which holds every rule), so
// the GUI never waits on the disk. A refused field or a failed export shows
// its message in the dialog, which stays open; a finished export emits
// export_finished and closes. VolumeViewerWidget opens it; GUI thread only.
#pragma once

#include <memory>

#include <QDialog>

#include "app/export/dicom_export_plan.hpp"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace medsynth::ui {

class DicomExportDialog : public QDialog {
  Q_OBJECT

 public:
  DicomExportDialog(std::shared_ptr<const Volume> volume, app::DicomExportSource source, QWidget* parent = nullptr);
  ~DicomExportDialog() override;

  app::DicomExportFields fields() const;
  void set_fields(const app::DicomExportFields& fields);
  QString summary_text() const;
  QString message_text() const;
  bool is_exporting() const { return exporting_; }

  QLineEdit* out_dir_edit() const { return out_dir_; }
  QComboBox* modality_box() const { return modality_; }
  QLineEdit* patient_name_edit() const { return patient_name_; }
  QLineEdit* patient_id_edit() const { return patient_id_; }
  QLineEdit* series_description_edit() const { return series_description_; }
  QPushButton* export_button() const { return export_button_; }

 public slots:
  // The Export button: checks the fields, then writes in the background.
  // False (with the reason shown) when the fields are refused.
  bool start_export();
  void reject() override;  // ignored while the files are being written

 signals:
  void export_finished(bool ok, const QString& message);

 private:
  void browse();
  void update_summary();
  void show_message(const QString& text, bool is_error);
  void finish(const app::DicomExportOutcome& outcome);

  std::shared_ptr<const Volume> volume_;
  app::DicomExportSource source_;
  QLineEdit* out_dir_ = nullptr;
  QComboBox* modality_ = nullptr;
  QLineEdit* patient_name_ = nullptr;
  QLineEdit* patient_id_ = nullptr;
  QLineEdit* series_description_ = nullptr;
  QPlainTextEdit* summary_ = nullptr;
  QLabel* message_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QPushButton* export_button_ = nullptr;
  bool exporting_ = false;
};

}  // namespace medsynth::ui

// Runs a "Synthetic dataset" (issue 39.5): the plan of
// synthetic_dataset_request.hpp, one engine command at a time (EngineStep,
// the engine's stderr relayed line by line), case after case, then the audit
// and the dataset card. Each case reports its state as it goes (waiting,
// preparing its label, generating, exporting, done or failed) with the
// quality check's verdict read from its ..._quality.json, so that a dialog
// shows live progress per case. A case that fails is marked failed with the
// engine's last lines and the next case goes on; the card is written for what
// was made. Asynchronous, GUI thread, no widgets.
#pragma once

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include "app/launch/synthetic_dataset_request.hpp"

namespace medsynth::app {

class EngineStep;

enum class DatasetCaseState { waiting, preparing, generating, exporting, done, failed };

QString dataset_case_state_name(DatasetCaseState state);

class SyntheticDatasetFlow : public QObject {
  Q_OBJECT

 public:
  // engine: empty = LocalLauncher::engine_path() at start().
  explicit SyntheticDatasetFlow(QObject* parent = nullptr, QString engine = {});
  ~SyntheticDatasetFlow() override;

  // Validates and plans, then runs. An invalid request or a missing engine
  // fails at once (failed is emitted before start returns).
  void start(const SyntheticDatasetRequest& request);
  // Stops the running command and what is left; failed("stopped") follows.
  void cancel();

  bool is_running() const { return running_; }
  const SyntheticDatasetPlan& plan() const { return plan_; }
  DatasetCaseState state(int index) const;
  QString program() const;

 signals:
  // A case's state changed; detail: the quality check's verdict, the files
  // written, or why it failed.
  void case_changed(int index, medsynth::app::DatasetCaseState state, const QString& detail);
  // A command starts: for case `index` (-1: the audit and the card).
  void step_started(int index, const QString& name, const QStringList& arguments);
  void output_line(const QString& line);
  // All cases were tried and the card written.
  void finished(const QString& card_path, int cases_done, int cases_failed);
  void failed(const QString& message);

 private:
  void run_next();
  void run_step(const DatasetStep& step);
  void on_step_finished(int exit_code, bool crashed);
  void set_case(int index, DatasetCaseState state, const QString& detail = {});
  QString case_summary(const DatasetCase& c) const;
  void fail(const QString& message);

  QString engine_;
  SyntheticDatasetPlan plan_;
  std::vector<DatasetCaseState> states_;
  EngineStep* runner_ = nullptr;  // a child; made at the first step
  int case_ = 0;                  // the case running (== cases: finishing)
  std::size_t step_ = 0;
  bool running_ = false;
  bool cancel_requested_ = false;
  int done_ = 0;
  int failed_cases_ = 0;
  QStringList stderr_tail_;
};

}  // namespace medsynth::app

Q_DECLARE_METATYPE(medsynth::app::DatasetCaseState)

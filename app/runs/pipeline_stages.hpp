// A pipeline run's stages as the console shows them (issue 23): which stages
// there are, how far each one is, and which stage a metric belongs to. Pure
// functions over a RunModel, so the run monitor stays a thin view and
// tests/app check the arithmetic without a display.
//
// The ldm pipeline reports stage metrics as "<stage>/<name>" with the stage's
// own step, and progress events over all training stages' steps; a stage
// event carries the stage's steps and first step (training stages) or the
// images it will write (generate).
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "app/runs/run_model.hpp"

namespace medsynth::app {

// How far one stage is. total == 0: not measurable (yet), only done/not done.
struct StageProgress {
  QString name;
  QString status;   // "pending" before its first stage event
  qint64 done = 0;  // steps (training stages) or images (generate)
  qint64 total = 0;
  QString unit;           // "steps", "images" or ""
  bool finished = false;  // complete, skipped because complete, or given
  bool current = false;   // the stage the pipeline is in now
};

// True when the run is a pipeline: it announced stages or reported one.
bool is_pipeline(const RunModel& model);
// Planned stages first (in order), then any stage seen but not planned.
QStringList pipeline_stage_names(const RunModel& model);
// Every stage's progress, in pipeline_stage_names() order.
QVector<StageProgress> pipeline_progress(const RunModel& model);
// "complete", "complete (5 written, …)", "skipped (complete)", "given".
bool is_finished_stage_status(const QString& status);

struct StageMetric {
  QString stage;  // "autoencoder"
  QString base;   // "train/loss"
};
// "autoencoder/train/loss" -> {autoencoder, train/loss} when "autoencoder" is
// one of `stages`; nullopt for a plain metric ("train/loss", "eval/mmd").
std::optional<StageMetric> split_stage_metric(const QString& metric, const QStringList& stages);

}  // namespace medsynth::app

// What the run history and the compare dialog line up across runs of
// different tasks (issue 38: ldm runs showed no final metrics in the history,
// stage-prefixed names did not line up, and there was no job diff):
//  - a run's headline value of a metric: its own name ("val/psnr"), or a
//    pipeline stage's ("autoencoder/val/psnr", "diffusion/train/loss"; of
//    several stages, the later one: controlnet, then diffusion, then
//    autoencoder), so an ldm run has a PSNR and a loss beside an
//    autoencoder run's;
//  - the job fields whose values differ among runs, from each run's job.yaml
//    (written resolved: every field present, so a missing key is a real
//    difference, shown as "(absent)").
// No widgets: tested without a display.
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace medsynth::app {

std::optional<double> headline_metric(const QMap<QString, double>& final_metrics, const QString& name);

struct JobDifference {
  QString path;        // "training.lr"
  QStringList values;  // one per run, as the job file writes it ("0.001", "[32, 32, 32]", "(absent)")
};

// The differing fields of the runs' job.yaml files, by path; a run
// whose job cannot be read gives "(unreadable: REASON)" for every field.
QList<JobDifference> job_differences(const QStringList& run_dirs);

// Names for a legend of runs whose names share a long start: the shared part
// after the first word becomes "…", so that "quickstart-20261201-061234" and
// "quickstart-20261201-071010" read "quickstart …061234" and
// "quickstart …071010" where a narrow legend cut both to
// "quickstart-20261201-…" (issue 53 item 9). Names that differ early, or a
// single name, come back as they are.
QStringList distinct_run_labels(const QStringList& names);

}  // namespace medsynth::app

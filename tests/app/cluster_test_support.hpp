// Shared by the ssh and slurm suites: the tiny job they launch, reading
// events.jsonl back, and processes left behind.
#pragma once

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QVector>

#include "app/runs/run_model.hpp"

namespace medsynth::app::test {

// A tiny 2-rank autoencoder job: ~0.1 s per step on 2 shared cores.
inline QByteArray tiny_cluster_job(const QString& name, int max_steps, int log_every = 2) {
  return QStringLiteral(
             "name: %1\n"
             "task: autoencoder\n"
             "data: {num_train: 4, num_val: 2, phantom_size: [24, 24, 24], phantom_spacing: [10.0, 10.0, 10.0], patch_size: [16, 16, 16], num_workers: 0}\n"
             "model: {autoencoder: {num_channels: [4, 8, 8], num_res_blocks: [1, 1, 1], norm_num_groups: 4}}\n"
             "training: {batch_size: 2, max_steps: %2, val_every_steps: 20, num_threads: 1}\n"
             "distributed: {timeout_s: 60, join_timeout_s: 60}\n"
             "checkpoint: {every_steps: 10}\n"
             "output: {log_every_steps: %3, tensorboard: false}\n")
      .arg(name)
      .arg(max_steps)
      .arg(log_every)
      .toUtf8();
}

// Metric series of an events.jsonl: name -> [(step, value)].
inline QMap<QString, QVector<QPair<qint64, double>>> metric_series_of(const QString& events_file, int* world_size = nullptr) {
  QMap<QString, QVector<QPair<qint64, double>>> series;
  QFile f(events_file);
  if (!f.open(QIODevice::ReadOnly)) return series;
  while (!f.atEnd()) {
    const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
    const QString type = o.value(QStringLiteral("type")).toString();
    if (type == QStringLiteral("metric"))
      series[o.value(QStringLiteral("name")).toString()].append({o.value(QStringLiteral("step")).toInteger(), o.value(QStringLiteral("value")).toDouble()});
    if (type == QStringLiteral("run_started") && world_size) *world_size = o.value(QStringLiteral("world_size")).toInt();
  }
  return series;
}

inline QMap<QString, QVector<QPair<qint64, double>>> metric_series_of(const RunModel& model) {
  QMap<QString, QVector<QPair<qint64, double>>> series;
  for (const QString& name : model.metric_names())
    for (const MetricPoint& p : model.series(name)) series[name].append({p.step, p.value});
  return series;
}

// Command lines of live processes containing `text` (pgrep -af), minus pgrep's own.
inline QStringList processes_matching(const QString& text) {
  QProcess p;
  p.start(QStringLiteral("pgrep"), {QStringLiteral("-af"), text});
  p.waitForFinished(10000);
  QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  lines.removeIf([](const QString& l) { return l.contains(QStringLiteral("pgrep")); });
  return lines;
}

}  // namespace medsynth::app::test

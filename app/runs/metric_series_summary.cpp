#include "app/runs/metric_series_summary.hpp"

#include <QMap>
#include <cmath>

namespace medsynth::app {

bool metric_higher_is_better(const QString& metric) {
  const QString name = metric.section(QLatin1Char('/'), -1).toLower();
  for (const char* falling : {"loss", "l1", "l2", "mse", "fid", "mmd", "error", "nll"})
    if (name.contains(QLatin1String(falling))) return false;
  return true;
}

std::optional<SeriesSummary> summarize_series(const QVector<MetricPoint>& points, const QString& metric) {
  const bool higher = metric_higher_is_better(metric);
  std::optional<SeriesSummary> out;
  for (const MetricPoint& p : points) {
    if (!p.finite || !std::isfinite(p.value)) continue;
    if (!out) {
      out = SeriesSummary{p, p};
      continue;
    }
    out->last = p;
    if (higher ? p.value > out->best.value : p.value < out->best.value) out->best = p;
  }
  return out;
}

namespace {

QString csv_value(const MetricPoint& p) {
  if (std::isnan(p.value)) return QStringLiteral("nan");
  if (std::isinf(p.value)) return p.value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(p.value, 'g', 17);
}

QString csv_field(QString text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
    return text;
  return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

}  // namespace

QString metric_series_csv(const QList<QPair<QString, const RunModel*>>& curves, const QString& metric) {
  QMap<qint64, QStringList> rows;  // step -> one cell per curve
  for (int c = 0; c < curves.size(); ++c) {
    if (!curves[c].second) continue;
    for (const MetricPoint& p : curves[c].second->series(metric)) {
      QStringList& row = rows[p.step];
      while (row.size() < curves.size()) row << QString();
      row[c] = csv_value(p);
    }
  }
  QStringList header{QStringLiteral("step")};
  for (const auto& [label, model] : curves) header << csv_field(label);
  QString text = header.join(QLatin1Char(',')) + QLatin1Char('\n');
  for (auto it = rows.cbegin(); it != rows.cend(); ++it) {
    QStringList row = it.value();
    while (row.size() < curves.size()) row << QString();
    text += QString::number(it.key()) + QLatin1Char(',') + row.join(QLatin1Char(',')) + QLatin1Char('\n');
  }
  return text;
}

}  // namespace medsynth::app

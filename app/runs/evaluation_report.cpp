// Reading evaluation.json and writing the HTML report.
#include "app/runs/evaluation_report.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace medsynth::app {
namespace {

std::optional<double> number_or_null(const QJsonValue& v) {
  if (v.isDouble()) return v.toDouble();
  return std::nullopt;
}

QVector<double> numbers(const QJsonValue& v) {
  QVector<double> out;
  for (const QJsonValue& x : v.toArray()) out.push_back(x.toDouble());
  return out;
}

QString value_text(const std::optional<double>& v) { return v ? QString::number(*v, 'g', 6) : QStringLiteral("–"); }

}  // namespace

QStringList EvaluationReport::flagged_pairs_text() const {
  QStringList out;
  for (const MemorizationCase& c : memorization)
    if (c.flagged)
      out << QStringLiteral("%1 ~ %2 (MS-SSIM distance ratio %3%4)")
                 .arg(QFileInfo(c.generated).fileName(), QFileInfo(c.nearest).fileName())
                 .arg(c.ms_ssim_ratio, 0, 'g', 3)
                 .arg(c.latent_ratio ? QStringLiteral(", latent ratio %1").arg(*c.latent_ratio, 0, 'g', 3) : QString());
  return out;
}

std::optional<EvaluationReport> read_evaluation_report(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = path + QStringLiteral(": ") + why;
    return std::optional<EvaluationReport>();
  };
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return fail(QStringLiteral("cannot read"));
  if (file.size() > (qint64{64} << 20)) return fail(QStringLiteral("larger than 64 MiB; not an evaluation"));
  QJsonParseError parse{};
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parse);
  if (parse.error != QJsonParseError::NoError || !doc.isObject()) return fail(QStringLiteral("not JSON: ") + parse.errorString());
  const QJsonObject o = doc.object();
  if (!o.value(QStringLiteral("metrics")).isArray()) return fail(QStringLiteral("no 'metrics' list"));
  EvaluationReport r;
  r.source = path;
  r.generated = static_cast<int>(o.value(QStringLiteral("generated")).toArray().size());
  r.reference = static_cast<int>(o.value(QStringLiteral("reference")).toArray().size());
  for (const QJsonValue& m : o.value(QStringLiteral("metrics")).toArray()) {
    const QJsonObject row = m.toObject();
    if (!row.value(QStringLiteral("metric")).isString()) return fail(QStringLiteral("a metric without a name"));
    r.metrics.push_back({row.value(QStringLiteral("metric")).toString(), number_or_null(row.value(QStringLiteral("value"))),
                         row.value(QStringLiteral("note")).toString()});
  }
  const QJsonObject h = o.value(QStringLiteral("hu_histogram")).toObject();
  r.histogram_lo = h.value(QStringLiteral("lo")).toDouble();
  r.histogram_bin_width = h.value(QStringLiteral("bin_width")).toDouble(1.0);
  r.histogram_generated = numbers(h.value(QStringLiteral("generated")));
  r.histogram_reference = numbers(h.value(QStringLiteral("reference")));
  if (r.histogram_generated.size() != r.histogram_reference.size()) return fail(QStringLiteral("hu_histogram: the two histograms differ in length"));
  const QJsonObject mem = o.value(QStringLiteral("memorization")).toObject();
  r.memorization_threshold = mem.value(QStringLiteral("threshold")).toDouble();
  for (const QJsonValue& c : mem.value(QStringLiteral("cases")).toArray()) {
    const QJsonObject x = c.toObject();
    r.memorization.push_back({x.value(QStringLiteral("generated")).toString(), x.value(QStringLiteral("nearest_by_ms_ssim")).toString(),
                              x.value(QStringLiteral("ms_ssim_ratio")).toDouble(), number_or_null(x.value(QStringLiteral("latent_ratio"))),
                              x.value(QStringLiteral("flagged")).toBool()});
  }
  return r;
}

QString evaluation_report_html(const EvaluationReport& r, const QString& title, const QByteArray& chart_png) {
  QString html;
  html += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title>\n").arg(title.toHtmlEscaped());
  html += QStringLiteral(
      "<style>body{font-family:sans-serif;margin:24px;max-width:900px}table{border-collapse:collapse;width:100%}"
      "td,th{border-bottom:1px solid #ccc;padding:4px 8px;text-align:left;font-size:13px}td.v{text-align:right;font-family:monospace}"
      ".flag{color:#b00020;font-weight:bold}</style></head><body>\n");
  html += QStringLiteral("<h1>%1</h1>\n<p>%2 generated vs %3 reference volumes &middot; %4</p>\n")
              .arg(title.toHtmlEscaped())
              .arg(r.generated)
              .arg(r.reference)
              .arg(r.source.toHtmlEscaped());
  html += QStringLiteral("<table><tr><th>metric</th><th>value</th><th>what it is</th></tr>\n");
  for (const EvaluationMetric& m : r.metrics)
    html += QStringLiteral("<tr><td>%1</td><td class=\"v\">%2</td><td>%3</td></tr>\n")
                .arg(m.name.toHtmlEscaped(), value_text(m.value), m.note.toHtmlEscaped());
  html += QStringLiteral("</table>\n");
  if (!chart_png.isEmpty())
    html += QStringLiteral("<h2>HU histograms</h2>\n<img alt=\"HU histograms\" width=\"860\" src=\"data:image/png;base64,%1\">\n")
                .arg(QString::fromLatin1(chart_png.toBase64()));
  if (!r.memorization.isEmpty()) {
    const QStringList flagged = r.flagged_pairs_text();
    html += QStringLiteral("<h2>Memorization audit</h2>\n<p>Threshold %1 &times; the training set's own median nearest-neighbour distance.</p>\n")
                .arg(r.memorization_threshold);
    if (flagged.isEmpty()) html += QStringLiteral("<p>No generated volume is flagged.</p>\n");
    for (const QString& f : flagged) html += QStringLiteral("<p class=\"flag\">%1</p>\n").arg(f.toHtmlEscaped());
  }
  html += QStringLiteral("<p style=\"color:#777;font-size:11px\">medsynth evaluate; protocol: docs/evaluation.md</p>\n</body></html>\n");
  return html;
}

}  // namespace medsynth::app

// EvaluationView: table, Qt Charts line series, flagged list, report export.
#include "ui/monitor/evaluation_view.hpp"

#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QPageSize>
#include <QPdfWriter>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableWidget>
#include <QTextDocument>
#include <QValueAxis>
#include <QVBoxLayout>

namespace medsynth::ui {
namespace {

// Bins [first, last] that hold anything in either histogram (CT's valid range
// is 4 000 HU wide; most of it is empty).
std::pair<int, int> occupied_bins(const app::EvaluationReport& r) {
  int first = -1, last = -1;
  for (int i = 0; i < r.histogram_generated.size(); ++i)
    if (r.histogram_generated[i] > 0 || r.histogram_reference[i] > 0) {
      if (first < 0) first = i;
      last = i;
    }
  return {first, last};
}

// The generated and reference HU histograms over the occupied bins, in percent.
QChart* histogram_chart(const app::EvaluationReport& r) {
  auto* chart = new QChart();
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setTitle(QObject::tr("HU histograms"));
  const auto [first, last] = occupied_bins(r);
  if (first >= 0) {
    auto* generated = new QLineSeries(chart);
    generated->setName(QObject::tr("generated"));
    auto* reference = new QLineSeries(chart);
    reference->setName(QObject::tr("reference"));
    double top = 0;
    for (int i = first; i <= last; ++i) {
      const double hu = r.histogram_lo + (i + 0.5) * r.histogram_bin_width;
      generated->append(hu, 100.0 * r.histogram_generated[i]);
      reference->append(hu, 100.0 * r.histogram_reference[i]);
      top = std::max({top, 100.0 * r.histogram_generated[i], 100.0 * r.histogram_reference[i]});
    }
    chart->addSeries(reference);
    chart->addSeries(generated);
    auto* x = new QValueAxis(chart);
    x->setTitleText(QObject::tr("HU (%1 HU bins)").arg(r.histogram_bin_width));
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setRange(r.histogram_lo + first * r.histogram_bin_width, r.histogram_lo + (last + 1) * r.histogram_bin_width);
    auto* y = new QValueAxis(chart);
    y->setTitleText(QObject::tr("% of voxels"));
    y->setLabelFormat(QStringLiteral("%.1f"));
    y->setRange(0, top * 1.05);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (auto* series : {generated, reference}) {
      series->attachAxis(x);
      series->attachAxis(y);
    }
  }
  return chart;
}

}  // namespace

EvaluationView::EvaluationView(QWidget* parent) : QWidget(parent) {
  header_ = new QLabel(this);
  header_->setObjectName("evaluation_header");
  header_->setWordWrap(true);
  metrics_ = new QTableWidget(0, 3, this);
  metrics_->setObjectName("evaluation_metrics");
  metrics_->setHorizontalHeaderLabels({tr("Metric"), tr("Value"), tr("What it is")});
  metrics_->horizontalHeader()->setStretchLastSection(true);
  metrics_->verticalHeader()->setVisible(false);
  metrics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  chart_ = new QChartView(this);
  chart_->setObjectName("hu_histograms");
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(220);
  flagged_ = new QListWidget(this);
  flagged_->setObjectName("flagged_pairs");
  flagged_->setMaximumHeight(90);
  compare_ = new QPushButton(tr("Compare side by side"), this);
  compare_->setObjectName("compare_flagged");
  export_ = new QPushButton(tr("Export report…"), this);
  export_->setObjectName("export_report");

  auto* buttons = new QHBoxLayout();
  buttons->addWidget(new QLabel(tr("Memorization audit, flagged pairs:"), this));
  buttons->addStretch(1);
  buttons->addWidget(compare_);
  buttons->addWidget(export_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(metrics_);
  split->addWidget(chart_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addWidget(split, 1);
  layout->addLayout(buttons);
  layout->addWidget(flagged_);

  connect(compare_, &QPushButton::clicked, this, [this] {
    const QListWidgetItem* item = flagged_->currentItem() ? flagged_->currentItem() : flagged_->item(0);
    if (item) emit compare_requested(item->data(Qt::UserRole).toString(), item->data(Qt::UserRole + 1).toString());
  });
  connect(flagged_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    emit compare_requested(item->data(Qt::UserRole).toString(), item->data(Qt::UserRole + 1).toString());
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export evaluation report"), QStringLiteral("evaluation-report.html"),
                                                      tr("HTML (*.html);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    if (const QString error = export_report(path); !error.isEmpty()) header_->setText(error);
  });
  clear();
}

void EvaluationView::clear() {
  report_.reset();
  header_->setText(tr("No evaluation yet. Run `medsynth-engine evaluate RUN_DIR --reference DATA`, or set generate.evaluate "
                      "for an ldm job (docs/evaluation.md)."));
  show_report();
}

bool EvaluationView::load(const QString& path) {
  QString error;
  auto report = app::read_evaluation_report(path, &error);
  if (!report) {
    report_.reset();
    show_report();
    header_->setText(error);
    return false;
  }
  report_ = std::move(report);
  show_report();
  return true;
}

void EvaluationView::show_report() {
  metrics_->setRowCount(0);
  flagged_->clear();
  QChart* chart = report_ ? histogram_chart(*report_) : new QChart();
  if (report_) {
    const auto& r = *report_;
    header_->setText(tr("%1 generated vs %2 reference volumes · %3").arg(r.generated).arg(r.reference).arg(r.source));
    metrics_->setRowCount(static_cast<int>(r.metrics.size()));
    for (int i = 0; i < r.metrics.size(); ++i) {
      const auto& m = r.metrics[i];
      metrics_->setItem(i, 0, new QTableWidgetItem(m.name));
      auto* value = new QTableWidgetItem(m.value ? QString::number(*m.value, 'g', 6) : QStringLiteral("–"));
      value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      metrics_->setItem(i, 1, value);
      metrics_->setItem(i, 2, new QTableWidgetItem(m.note));
    }
    metrics_->resizeColumnsToContents();
    for (const auto& c : r.memorization) {
      if (!c.flagged) continue;
      auto* item = new QListWidgetItem(QStringLiteral("⚑ %1 ~ %2 (ratio %3)")
                                           .arg(QFileInfo(c.generated).fileName(), QFileInfo(c.nearest).fileName())
                                           .arg(c.ms_ssim_ratio, 0, 'g', 3),
                                       flagged_);
      item->setData(Qt::UserRole, c.generated);
      item->setData(Qt::UserRole + 1, c.nearest);
      item->setToolTip(c.generated + QStringLiteral("\n") + c.nearest);
    }
    if (r.memorization.isEmpty())
      new QListWidgetItem(tr("no audit (evaluate --train DATA)"), flagged_);
    else if (flagged_->count() == 0)
      new QListWidgetItem(tr("none flagged (threshold %1)").arg(r.memorization_threshold), flagged_);
  }
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
  const bool has_pairs = report_ && !report_->flagged_pairs_text().isEmpty();
  compare_->setEnabled(has_pairs);
  export_->setEnabled(report_.has_value());
}

QByteArray EvaluationView::chart_png() const {
  if (!report_) return {};
  // Drawn at report size in a view of its own, not scaled from the tab's.
  QChartView view(histogram_chart(*report_));
  view.setRenderHint(QPainter::Antialiasing);
  view.resize(900, 380);
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  view.grab().save(&buffer, "PNG");
  return png;
}

QString EvaluationView::export_report(const QString& path) const {
  if (!report_) return tr("nothing to export: no evaluation loaded");
  const QString title = tr("Evaluation of %1").arg(QFileInfo(QFileInfo(report_->source).absolutePath()).dir().dirName());
  const QString html = app::evaluation_report_html(*report_, title, chart_png());
  if (path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
    QPdfWriter pdf(path);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setResolution(150);
    pdf.setTitle(title);
    // QTextDocument loads no data: URLs; the chart goes in as a resource.
    QString paged = html;
    paged.replace(QRegularExpression(QStringLiteral("src=\"data:image/png;base64,[^\"]*\"")), QStringLiteral("src=\"hu-histograms.png\""));
    QTextDocument document;
    document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("hu-histograms.png")), QImage::fromData(chart_png(), "PNG"));
    document.setHtml(paged);
    document.setPageSize(QSizeF(pdf.width(), pdf.height()));
    document.print(&pdf);
    return QFileInfo(path).size() > 0 ? QString() : tr("%1: could not write the PDF").arg(path);
  }
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(html.toUtf8()) < 0) return tr("%1: cannot write").arg(path);
  return {};
}

}  // namespace medsynth::ui

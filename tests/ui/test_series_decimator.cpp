// SeriesDecimator and smooth_ema: pure logic behind the monitor's charts.
#include <QRandomGenerator>
#include <QtTest>
#include <cmath>
#include <limits>

#include "ui/monitor/series_decimator.hpp"
#include "ui/monitor/series_smoothing.hpp"

using medsynth::app::MetricPoint;
using medsynth::ui::SeriesDecimator;
using medsynth::ui::SeriesDecimatorOptions;

namespace {

QList<QPointF> noisy_series(int n, quint32 seed) {
  QRandomGenerator rng(seed);
  QList<QPointF> points;
  for (int i = 0; i < n; ++i) points << QPointF(i, std::exp(-i / 20000.0) + 0.05 * rng.generateDouble());
  return points;
}

bool contains(const QList<QPointF>& points, const QPointF& p) { return points.contains(p); }

}  // namespace

class TestSeriesDecimator : public QObject {
  Q_OBJECT

 private slots:
  void small_input_is_returned_whole() {
    const QList<QPointF> in{{0, 1}, {1, 3}, {2, 2}};
    QCOMPARE(SeriesDecimator().decimate(in), in);
  }

  void output_is_bounded() {
    const QList<QPointF> in = noisy_series(100000, 1);
    SeriesDecimator d(SeriesDecimatorOptions{.max_points = 2000});
    const QList<QPointF> out = d.decimate(in);
    QVERIFY(out.size() <= 2000);
    QVERIFY(out.size() >= 1000);  // it does not throw data away for nothing
    QVERIFY(d.decimate(in, 300).size() <= 600);  // the pixel limit
  }

  void keeps_the_extremes() {
    QList<QPointF> in = noisy_series(100000, 2);
    // A spike and a dip a pixel-wide bucket could hide.
    in[31337].setY(50.0);
    in[77777].setY(-7.0);
    const QList<QPointF> out = SeriesDecimator().decimate(in, 500);
    QVERIFY(contains(out, in[31337]));
    QVERIFY(contains(out, in[77777]));
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const QPointF& p : out) lo = std::min(lo, p.y()), hi = std::max(hi, p.y());
    QCOMPARE(hi, 50.0);
    QCOMPARE(lo, -7.0);
  }

  void every_bucket_keeps_its_min_and_max() {
    const QList<QPointF> in = noisy_series(10000, 3);
    const int buckets = 100;
    const QList<QPointF> out = SeriesDecimator().decimate(in, buckets);
    // Bucket b covers x in [b*w, (b+1)*w): its extremes must be in the output.
    const double w = 9999.0 / buckets;
    for (int b = 0; b < buckets; ++b) {
      QPointF lo(0, 1e9), hi(0, -1e9);
      for (const QPointF& p : in) {
        int index = std::min(buckets - 1, static_cast<int>(p.x() / w));
        if (index != b) continue;
        if (p.y() < lo.y()) lo = p;
        if (p.y() > hi.y()) hi = p;
      }
      QVERIFY2(contains(out, lo) && contains(out, hi), qPrintable(QStringLiteral("bucket %1").arg(b)));
    }
  }

  void steps_are_monotone_even_when_the_input_is_not() {
    // A restarted run repeats steps 500..999 after reaching 1000.
    QList<QPointF> in;
    for (int i = 0; i < 1000; ++i) in << QPointF(i, std::sin(i / 30.0));
    for (int i = 500; i < 5000; ++i) in << QPointF(i, std::cos(i / 40.0));
    const QList<QPointF> out = SeriesDecimator().decimate(in, 200);
    QVERIFY(out.size() <= 400);
    for (qsizetype i = 1; i < out.size(); ++i) QVERIFY(out[i].x() >= out[i - 1].x());
    const QList<QPointF> small = SeriesDecimator().decimate(QList<QPointF>{{3, 1}, {1, 2}, {2, 3}});
    QCOMPARE(small, (QList<QPointF>{{1, 2}, {2, 3}, {3, 1}}));
  }

  void non_finite_points_are_skipped() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const QList<QPointF> in{{0, 1}, {1, nan}, {2, inf}, {3, 2}};
    QCOMPARE(SeriesDecimator().decimate(in), (QList<QPointF>{{0, 1}, {3, 2}}));
  }

  void constant_x_lands_in_one_bucket() {
    QList<QPointF> in;
    for (int i = 0; i < 5000; ++i) in << QPointF(7, i % 13);
    const QList<QPointF> out = SeriesDecimator().decimate(in, 100);
    QCOMPARE(out.size(), 2);
    QCOMPARE(out[0].y() + out[1].y(), 12.0);
  }

  void options_are_validated() {
    QVERIFY(!SeriesDecimatorOptions{.max_points = 2}.validate().isEmpty());
    QVERIFY(SeriesDecimatorOptions{.max_points = 4}.validate().isEmpty());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SeriesDecimator(SeriesDecimatorOptions{.max_points = 0}));
  }

  void ema_weight_zero_is_the_raw_series() {
    const QVector<MetricPoint> in{{1, 4.0, true}, {2, 2.0, true}, {3, 8.0, true}};
    QCOMPARE(medsynth::ui::smooth_ema(in, 0.0), (QList<QPointF>{{1, 4}, {2, 2}, {3, 8}}));
  }

  void ema_is_debiased_like_tensorboard() {
    const QVector<MetricPoint> in{{1, 4.0, true}, {2, 2.0, true}, {3, 8.0, true}};
    const QList<QPointF> out = medsynth::ui::smooth_ema(in, 0.5);
    QCOMPARE(out.size(), 3);
    QCOMPARE(out[0].y(), 4.0);  // the first point is not pulled towards 0
    // By hand: the running averages are 2, 2, 5; divided by 1 - 0.5^n = 0.5, 0.75, 0.875.
    QVERIFY(qFuzzyCompare(out[1].y(), 2.0 / 0.75));
    QVERIFY(qFuzzyCompare(out[2].y(), 5.0 / 0.875));
    // A constant series stays constant whatever the weight.
    QVector<MetricPoint> flat;
    for (int i = 0; i < 100; ++i) flat.push_back({i, 3.0, true});
    for (const QPointF& p : medsynth::ui::smooth_ema(flat, 0.99)) QVERIFY(qFuzzyCompare(p.y(), 3.0));
  }

  void ema_skips_non_finite_points_without_resetting() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const QVector<MetricPoint> in{{1, 4.0, true}, {2, nan, false}, {3, 4.0, true}};
    const QList<QPointF> out = medsynth::ui::smooth_ema(in, 0.9);
    QCOMPARE(out.size(), 2);
    QCOMPARE(out[1].x(), 3.0);
    QVERIFY(qFuzzyCompare(out[1].y(), 4.0));
  }
};

QTEST_GUILESS_MAIN(TestSeriesDecimator)
#include "test_series_decimator.moc"

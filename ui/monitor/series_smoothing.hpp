// TensorBoard-style smoothing of a metric series for the run monitor's
// smoothing slider: an exponential moving average with TensorBoard's
// debiasing (the first points are not dragged towards zero). Pure logic, used
// by MetricChartView; tested in tests/ui/test_series_decimator.cpp.
#pragma once

#include <QList>
#include <QPointF>
#include <QVector>

#include "app/runs/run_model.hpp"

namespace medsynth::ui {

// Finite points of `points` as (step, value), smoothed with `weight` in
// [0, 1): 0 returns the raw values; 0.99 is very smooth. Non-finite points
// are dropped and do not reset the average (a NaN step is a gap, not a zero).
QList<QPointF> smooth_ema(const QVector<app::MetricPoint>& points, double weight);

// The raw finite points as (step, value).
QList<QPointF> finite_points(const QVector<app::MetricPoint>& points);

}  // namespace medsynth::ui

// Fields that another field's value makes unused, and why: with max_steps > 0
// the step count ends the run and `epochs` is ignored by the engine's trainer
// (engine/train/trainer.cpp), so a form showing "Epochs 2" beside
// "Max steps 1500" must say which one counts. The job editor greys such a
// field out and shows the reason under it; the value stays in the file.
#pragma once

#include <QString>
#include <QVariant>
#include <functional>

namespace medsynth::app {

// The job's value at a dotted path ("training.max_steps"); invalid if absent.
using JobValueLookup = std::function<QVariant(const QString& dotted_path)>;

// Why `path` has no effect on a run of this job, or "" when it has one.
QString unused_field_reason(const QString& path, const JobValueLookup& value_of);

}  // namespace medsynth::app

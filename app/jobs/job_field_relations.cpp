#include "app/jobs/job_field_relations.hpp"

namespace medsynth::app {

QString unused_field_reason(const QString& path, const JobValueLookup& value_of) {
  if (path == QLatin1String("training.epochs")) {
    // The trainer's rule: max_steps > 0 sets the run's length, epochs only count otherwise.
    const QVariant steps = value_of(QStringLiteral("training.max_steps"));
    bool ok = false;
    const qlonglong n = steps.toLongLong(&ok);
    if (ok && n > 0) return QStringLiteral("Not used: Max steps (%1) ends the run. Set Max steps to 0 to train by epochs.").arg(n);
  }
  if (path == QLatin1String("training.val_overlap")) {
    const QVariant sliding = value_of(QStringLiteral("training.val_sliding_window"));
    if (sliding.isValid() && !sliding.toBool())
      return QStringLiteral("Not used: validation reconstructs whole volumes (sliding-window validation is off).");
  }
  return {};
}

}  // namespace medsynth::app

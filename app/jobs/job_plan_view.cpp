#include "app/jobs/job_plan_view.hpp"

#include <algorithm>

#include "config/job_plan.hpp"
#include "config/job_spec.hpp"

namespace medsynth::app {

namespace {

QString gib(double bytes) { return QString::fromStdString(gibibytes(bytes)); }

constexpr double k_day_s = 24.0 * 3600.0;  // longer than this on a CPU: a warning

QString duration(double s) {
  if (s >= 2 * k_day_s) return QStringLiteral("%1 days").arg(s / k_day_s, 0, 'f', 1);
  if (s >= 3600) return QStringLiteral("%1 h").arg(s / 3600, 0, 'f', 1);
  return QStringLiteral("%1 min").arg(std::max(1.0, s / 60), 0, 'f', 0);
}

QString seconds(double s) {
  return s >= 1.0 ? QStringLiteral("%1 s").arg(s, 0, 'f', 1) : QStringLiteral("%1 s").arg(s, 0, 'g', 2);
}

}  // namespace

JobPlanView job_plan_view(const JobSpec& job, const PlanTarget& target) {
  const JobPlan plan = plan_job(job);
  const int n = std::max(1, target.processes);
  const bool cluster = target.cluster;
  JobPlanView view;
  QString where;
  const bool gpu_here = !cluster && target.gpu;
  const int cores = target.cores > 0 ? std::max(1, target.cores / n) : 1;
  // The whole run's training steps on the target, spread over its processes.
  double run_s = 0;
  if (cluster || gpu_here) {
    where = QStringLiteral("%1 per step on an H100").arg(seconds(h100_seconds(plan.step_macs)));
    run_s = h100_seconds(plan.run_macs) / n;
  } else {
    where = QStringLiteral("%1 per step on %2 CPU core(s) per process%3")
                .arg(seconds(cpu_seconds(plan.step_macs, cores, job.training.amp)))
                .arg(cores)
                .arg(job.training.amp ? QStringLiteral(" with native bf16") : QString());
    run_s = cpu_seconds(plan.run_macs, cores, job.training.amp) / n;
  }
  if (run_s > 0) where += QStringLiteral("; the run's training steps about %1").arg(duration(run_s));
  view.summary =
      QStringLiteral("Estimate%1: peak %2 per process (activations %3, weights and Adam %4), %5.")
          .arg(plan.stage.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(plan.stage)))
          .arg(gib(plan.peak_bytes()), gib(plan.activation_bytes), gib(plan.state_bytes), where);
  if (!cluster && !gpu_here && run_s > k_day_s)
    view.warning = QStringLiteral(
                       "Would take about %1 on this machine's CPU: launch it on a GPU node, or make it "
                       "smaller.")
                       .arg(duration(run_s));
  if (!cluster && !gpu_here && target.memory_gib > 0) {
    const double available = target.memory_gib * 1024.0 * 1024.0 * 1024.0;
    const double needed = plan.peak_bytes() * n;
    if (needed > available)
      view.warning = QStringLiteral(
                         "Probably does not fit this machine: %1 process(es) need about %2, it has %3. "
                         "Make data.patch_size or training.batch_size smaller, use fewer processes, or "
                         "launch on a GPU node.")
                         .arg(n)
                         .arg(gib(needed), gib(available));
  }
  return view;
}

}  // namespace medsynth::app

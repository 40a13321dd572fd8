#include "app/jobs/job_plan_view.hpp"

#include <algorithm>

#include "config/job_plan.hpp"
#include "config/job_spec.hpp"

namespace medsynth::app {

namespace {

QString gib(double bytes) { return QString::fromStdString(gibibytes(bytes)); }

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
  if (cluster || gpu_here) {
    where = QStringLiteral("%1 per step on an H100").arg(seconds(h100_step_seconds(plan)));
  } else {
    const int cores = target.cores > 0 ? std::max(1, target.cores / n) : 1;
    where = QStringLiteral("%1 per step on %2 CPU core(s) per process%3")
                .arg(seconds(cpu_step_seconds(plan, cores, job.training.amp)))
                .arg(cores)
                .arg(job.training.amp ? QStringLiteral(" with native bf16") : QString());
  }
  view.summary =
      QStringLiteral("Estimate%1: peak %2 per process (activations %3, weights and Adam %4), %5.")
          .arg(plan.stage.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(plan.stage)))
          .arg(gib(plan.peak_bytes()), gib(plan.activation_bytes), gib(plan.state_bytes), where);
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

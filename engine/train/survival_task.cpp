#include "train/survival_task.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "data/survival_data.hpp"
#include "dist/process_group.hpp"
#include "models/resnet3d.hpp"
#include "train/autocast_scope.hpp"
#include "train/own_batch_data.hpp"
#include "metrics/survival_metrics.hpp"

namespace medsynth {

struct SurvivalTask::Impl {
  JobSpec job;
  ResNet3d net{nullptr};
  c10::Device device{c10::kCPU};
  std::unique_ptr<SurvivalData> train, val;
  int num_covariates = 0;
};

SurvivalTask::SurvivalTask(const JobSpec& job) : impl_(std::make_unique<Impl>()) {
  impl_->job = job;
  ResNet3dOptions o = job.model.resnet;
  o.n_input_channels = job.model.autoencoder.in_channels;
  o.num_covariates = static_cast<int>(covariate_columns(job.data.covariates).size());
  impl_->num_covariates = o.num_covariates;
  impl_->net = ResNet3d(o);
}

SurvivalTask::~SurvivalTask() = default;

std::vector<NamedModule> SurvivalTask::modules() { return {{"resnet", impl_->net.ptr()}}; }

std::vector<OptimizerGroup> SurvivalTask::optimizer_groups() {
  return {optimizer_group("resnet", "resnet", *impl_->net)};
}

at::Tensor SurvivalTask::compute_loss(std::size_t, const StepBatch& step_batch, int,
                                      std::map<std::string, double>& terms) {
  const at::Tensor& batch = step_batch.images;
  if (!step_batch.labels.defined() || step_batch.labels.size(0) != batch.size(0))
    throw RuntimeError("survival task: the batch came without its labels");
  at::Tensor labels = step_batch.labels.to(batch.device());
  at::Tensor covariates = impl_->num_covariates > 0 ? labels.slice(1, 2).to(at::kFloat) : at::Tensor();
  at::Tensor risk = impl_->net->forward(batch, covariates).to(at::kFloat);
  at::Tensor loss = cox_partial_likelihood_loss(risk, labels.select(1, 0), labels.select(1, 1));
  terms["train/cox_loss"] += loss.item<double>();
  return loss;
}

std::unique_ptr<TrainingData> SurvivalTask::make_data(const RunShard& shard) {
  auto& m = *impl_;
  m.train = std::make_unique<SurvivalData>(m.job, "train");
  m.val = std::make_unique<SurvivalData>(m.job, "val");
  SurvivalSourceOptions o;
  o.batch_size = m.job.training.batch_size;
  o.smart_cache = m.job.data.smart_cache;
  o.cache.cache_rate = m.job.data.cache_rate;
  o.cache.replace_rate = m.job.data.replace_rate;
  o.base_seed = static_cast<std::uint64_t>(m.job.training.base_seed);
  o.rank = shard.rank;
  o.world_size = shard.world_size;
  const auto& p = m.job.data.patch_size;
  return std::make_unique<OwnBatchData>(
      std::make_unique<SurvivalBatchSource>(*m.train, o), [this, shard](int) { return validate(shard); },
      std::int64_t{p[0]} * p[1] * p[2], m.val->size());
}

ValidationResult SurvivalTask::validate(const RunShard& shard) {
  auto& m = *impl_;
  DistContext* dist = shard.dist;
  const int rank = shard.rank, world_size = shard.world_size;
  at::NoGradGuard no_grad;
  // Batch-norm statistics are per rank (gradients are synced, running stats
  // are not): average them first, so every rank validates the same network.
  if (dist) {
    std::vector<at::Tensor> stats;
    for (const auto& b : m.net->named_buffers(true))
      if (b.key().find("running_") != std::string::npos) stats.push_back(b.value());
    if (!stats.empty()) {
      std::vector<at::Tensor> flat;
      for (auto& t : stats) flat.push_back(t.to(at::kCPU, at::kFloat).reshape({-1}));
      std::vector<at::Tensor> buffer{at::cat(flat).contiguous()};
      dist->all_reduce_sum(buffer, "survival batch-norm statistics");
      std::int64_t offset = 0;
      for (auto& t : stats) {
        t.copy_(buffer[0].slice(0, offset, offset + t.numel()).view(t.sizes()) / world_size);
        offset += t.numel();
      }
    }
  }
  AutocastScope autocast(m.job.training.amp, m.device.type());
  train_mode(false);
  const std::size_t n = m.val->size();
  at::Tensor risks = at::zeros({static_cast<std::int64_t>(n)}, at::kFloat);
  for (std::size_t i : validation_items(n, 0, rank, world_size)) {
    at::Tensor covariates;
    const auto& l = m.val->label(i);
    if (m.num_covariates > 0) covariates = at::tensor(l.covariates, at::kDouble).to(at::kFloat).unsqueeze(0).to(m.device);
    risks[static_cast<std::int64_t>(i)] = m.net->forward(m.val->image(i).unsqueeze(0).to(m.device), covariates).to(at::kCPU, at::kFloat)[0];
  }
  train_mode(true);
  if (dist) {
    std::vector<at::Tensor> buffer{risks.contiguous()};
    dist->all_reduce_sum(buffer, "survival validation risks");
    risks = buffer[0];
  }
  std::vector<double> risk(n), time(n);
  std::vector<int> event(n);
  for (std::size_t i = 0; i < n; ++i) {
    risk[i] = risks[static_cast<std::int64_t>(i)].item<double>();
    time[i] = m.val->label(i).time;
    event[i] = m.val->label(i).event;
  }
  ValidationResult result;
  result.count = 1;  // every rank holds the whole set's value
  result.metrics["val/c_index"] = harrell_c_index(risk, time, event);
  result.metrics["val/cox_loss"] = cox_partial_likelihood_loss(at::tensor(risk, at::kDouble), at::tensor(time, at::kDouble),
                                                               at::tensor(std::vector<double>(event.begin(), event.end()), at::kDouble))
                                       .item<double>();
  std::string csv = "id,time,event,risk\n";
  char line[128];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(line, sizeof line, ",%.6g,%d,%.6g\n", time[i], event[i], risk[i]);
    csv += m.val->id(i) + line;
  }
  result.files.emplace_back("risk_scores.csv", csv);
  return result;
}

void SurvivalTask::to(const c10::Device& device) {
  impl_->device = device;
  impl_->net->to(device);
}

void SurvivalTask::train_mode(bool on) { impl_->net->train(on); }

}  // namespace medsynth

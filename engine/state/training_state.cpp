#include "state/training_state.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/flat_hash_map.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.hpp"
#include "state/ema_weights.hpp"

namespace medsynth {
namespace {

void* key_of(const at::Tensor& p) { return p.unsafeGetTensorImpl(); }

// The device the modules train on (the first parameter's). On CUDA the model's
// own draws (the VAE's reparameterisation without per-sample keys, dropout)
// come from that device's generator, which a bit-exact resume restores too.
std::optional<c10::Device> cuda_device_of(const std::vector<NamedModule>& modules) {
  for (const auto& m : modules)
    for (const auto& p : m.module->parameters())
      return p.device().is_cuda() ? std::optional<c10::Device>(p.device()) : std::nullopt;
  return std::nullopt;
}

}  // namespace

TensorFile capture_training_state(const std::vector<NamedModule>& modules, const std::vector<OptimizerSlot>& optimizers,
                                  const TrainingProgress& progress, const CheckpointIdentity& identity,
                                  const EmaWeights* ema) {
  TensorFile file;
  for (const auto& m : modules) {
    for (const auto& p : m.module->named_parameters(true)) file.tensors["model." + m.name + "." + p.key()] = p.value().detach();
    for (const auto& b : m.module->named_buffers(true)) file.tensors["model." + m.name + "." + b.key()] = b.value().detach();
  }
  nlohmann::json adam_steps = nlohmann::json::object();
  for (const auto& slot : optimizers) {
    auto& state = slot.optimizer->state();
    int64_t step = 0;
    for (std::size_t i = 0; i < slot.group.parameters.size(); ++i) {
      auto it = state.find(key_of(slot.group.parameters[i]));
      if (it == state.end()) continue;
      auto& s = static_cast<torch::optim::AdamWParamState&>(*it->second);
      const std::string base = "optim." + slot.group.name + "." + slot.group.parameter_names[i];
      file.tensors[base + ".exp_avg"] = s.exp_avg();
      file.tensors[base + ".exp_avg_sq"] = s.exp_avg_sq();
      step = s.step();
    }
    adam_steps[slot.group.name] = step;
  }
  file.tensors["rng.cpu"] = at::detail::getDefaultCPUGenerator().get_state();
  if (const auto cuda = cuda_device_of(modules)) file.tensors["rng.cuda"] = at::globalContext().defaultGenerator(*cuda).get_state();
  if (ema && ema->enabled())
    for (auto& [name, t] : ema->tensors()) file.tensors[name] = t;

  nlohmann::json p = {{"step", progress.step},
                      {"epoch", progress.epoch},
                      {"batch_in_epoch", progress.batch_in_epoch},
                      {"lr_factor", progress.lr_factor},
                      {"scaler_scale", progress.scaler_scale},
                      {"scaler_growth_tracker", progress.scaler_growth_tracker},
                      {"rollbacks", progress.rollbacks},
                      {"adam_steps", adam_steps},
                      {"last_metrics", progress.last_metrics}};
  file.metadata = {{"format", k_checkpoint_format},       {"task", identity.task},
                   {"model_hash", identity.model_hash},   {"config_hash", identity.config_hash},
                   {"job", identity.job_yaml},            {"progress", p.dump()}};
  return file;
}

CheckpointIdentity check_checkpoint_identity(const TensorFile& file, const std::string& path, const CheckpointIdentity& expected) {
  auto get = [&](const char* key) {
    auto it = file.metadata.find(key);
    return it == file.metadata.end() ? std::string() : it->second;
  };
  bool has_weights = false;
  for (const auto& [name, t] : file.tensors) has_weights = has_weights || name.rfind("model.", 0) == 0;
  if (get("format") != k_checkpoint_format && has_weights && file.metadata.count("progress") == 0)
    throw UsageError(path + ": holds weights only (no step, optimizer state or job), so it cannot resume a run; to start a new run " +
                     "from these weights: medsynth-engine train JOB --init-weights " + path);
  if (get("format") != k_checkpoint_format)
    throw UsageError(path + ": not a medsynth checkpoint (format '" + get("format") + "', expected '" + k_checkpoint_format +
                     "'); a weights-only file cannot resume training");
  CheckpointIdentity found{get("task"), get("model_hash"), get("config_hash"), get("job")};
  if (!expected.task.empty() && found.task != expected.task)
    throw UsageError(path + ": checkpoint of task '" + found.task + "', this job is task '" + expected.task + "'");
  if (!expected.model_hash.empty() && found.model_hash != expected.model_hash)
    throw UsageError(path + ": checkpoint of another model (model hash " + found.model_hash + ", this job's model is " +
                     expected.model_hash + "); the model section of the job must match the checkpoint's");
  return found;
}

void restore_weights(const std::vector<NamedModule>& modules, const TensorFile& file, const std::string& path,
                     bool prefer_ema) {
  at::NoGradGuard no_grad;
  bool has_ema = false;
  for (const auto& [name, t] : file.tensors) has_ema = has_ema || name.rfind("ema.", 0) == 0;
  std::vector<std::string> missing;
  std::size_t expected_count = 0;
  for (const auto& m : modules) {
    auto load = [&](const std::string& name, at::Tensor target) {
      ++expected_count;
      auto it = file.tensors.find("model." + m.name + "." + name);
      if (prefer_ema && has_ema) {
        auto averaged = file.tensors.find("ema." + m.name + "." + name);
        if (averaged != file.tensors.end()) it = averaged;  // buffers have no average
      }
      if (it == file.tensors.end()) {
        missing.push_back(m.name + "." + name);
        return;
      }
      if (it->second.sizes() != target.sizes())
        throw UsageError(path + ": tensor " + m.name + "." + name + " has shape " + c10::str(it->second.sizes()) +
                         ", the model expects " + c10::str(target.sizes()));
      // copy_ would convert silently: a bf16 or fp16 file is not this model's.
      if (it->second.scalar_type() != target.scalar_type())
        throw UsageError(path + ": tensor " + m.name + "." + name + " is " + c10::toString(it->second.scalar_type()) + ", the model's is " +
                         c10::toString(target.scalar_type()) + " (a checkpoint of another precision or tool)");
      target.copy_(it->second);
    };
    for (const auto& p : m.module->named_parameters(true)) load(p.key(), p.value());
    for (const auto& b : m.module->named_buffers(true)) load(b.key(), b.value());
  }
  if (!missing.empty())
    throw UsageError(path + ": " + std::to_string(missing.size()) + " model tensors missing (first: " + missing.front() + ")");
  std::size_t present = 0;
  for (const auto& [name, t] : file.tensors) present += name.rfind("model.", 0) == 0;
  if (present != expected_count)
    throw UsageError(path + ": checkpoint has " + std::to_string(present) + " model tensors, the model has " +
                     std::to_string(expected_count));
}

TrainingProgress restore_training_state(const std::vector<NamedModule>& modules, std::vector<OptimizerSlot>& optimizers,
                                        const TensorFile& file, const std::string& path, EmaWeights* ema) {
  restore_weights(modules, file, path);
  auto it = file.metadata.find("progress");
  if (it == file.metadata.end()) throw UsageError(path + ": checkpoint has no training progress (weights only?)");
  nlohmann::json p = nlohmann::json::parse(it->second);
  TrainingProgress progress;
  progress.step = p.at("step");
  progress.epoch = p.at("epoch");
  progress.batch_in_epoch = p.at("batch_in_epoch");
  progress.lr_factor = p.at("lr_factor");
  progress.scaler_scale = p.at("scaler_scale");
  progress.scaler_growth_tracker = p.at("scaler_growth_tracker");
  progress.rollbacks = p.value("rollbacks", 0);
  progress.last_metrics = p.value("last_metrics", std::map<std::string, double>{});

  for (auto& slot : optimizers) {
    auto& state = slot.optimizer->state();
    state.clear();
    const int64_t step = p.at("adam_steps").value(slot.group.name, int64_t{0});
    for (std::size_t i = 0; i < slot.group.parameters.size(); ++i) {
      const std::string base = "optim." + slot.group.name + "." + slot.group.parameter_names[i];
      auto a = file.tensors.find(base + ".exp_avg");
      auto b = file.tensors.find(base + ".exp_avg_sq");
      if (a == file.tensors.end() || b == file.tensors.end()) continue;  // parameter never stepped
      const auto& param = slot.group.parameters[i];
      for (const auto& moment : {a, b})
        if (moment->second.sizes() != param.sizes() || moment->second.scalar_type() != param.scalar_type())
          throw UsageError(path + ": optimizer state " + moment->first + " is " + c10::toString(moment->second.scalar_type()) + " " +
                           c10::str(moment->second.sizes()) + ", its parameter is " + c10::toString(param.scalar_type()) + " " +
                           c10::str(param.sizes()));
      auto s = std::make_unique<torch::optim::AdamWParamState>();
      s->step(step);
      s->exp_avg(a->second.to(param.device()).clone());
      s->exp_avg_sq(b->second.to(param.device()).clone());
      state[key_of(param)] = std::move(s);
    }
  }
  auto rng = file.tensors.find("rng.cpu");
  if (rng == file.tensors.end()) throw UsageError(path + ": checkpoint has no RNG state");
  if (ema) ema->restore(file.tensors, path);
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  generator.set_state(rng->second);
  // Absent in a checkpoint written on a CPU: the GPU then keeps its seeded state.
  if (const auto cuda = cuda_device_of(modules); cuda && file.tensors.count("rng.cuda")) {
    at::Generator device_generator = at::globalContext().defaultGenerator(*cuda);  // shares the default's state
    device_generator.set_state(file.tensors.at("rng.cuda"));
  }
  return progress;
}

}  // namespace medsynth

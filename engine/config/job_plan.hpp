// The planner (issue 38): what one training step of a job needs, from its
// options alone, before anything is allocated: the trained networks'
// parameters; their weights, gradients and Adam state (16 bytes per
// parameter); the activations one micro-batch keeps for the backward pass,
// summed over the networks' levels (the tensors a residual block keeps, at
// the step's precision: 2.5 bytes under AMP, 4 in float32, both measured);
// and the step's multiply-adds. For a pipeline the stage that needs the most.
// An estimate, checked against measured peaks (tests/engine/config/
// job_plan_test.cpp, docs/performance.md "The planner"): the quick start's
// growth with its patch within 25 % over threads, seeds and CPU kinds; the
// perceptual loss's feature network is not counted. Torch-free: the console shows it before Launch.
#pragma once

#include <string>
#include <vector>

namespace medsynth {

struct JobSpec;

struct NetworkPlan {
  std::string name;  // "model.autoencoder", "model.discriminator", ...
  double parameters = 0;
  double activation_bytes = 0;  // one micro-batch's, kept for the backward pass
  double macs = 0;              // forward multiply-adds of one micro-batch
};

struct JobPlan {
  std::string stage;  // the training stage planned ("" for a trainer task; "diffusion stage", ...)
  std::vector<NetworkPlan> networks;
  double state_bytes = 0;                             // weights, gradients and Adam's two moments, float32
  double activation_bytes = 0;                        // all networks, one micro-batch
  double framework_bytes = 0.5 * 1024 * 1024 * 1024;  // the runtime itself (LibTorch, CUDA context): measured ~0.5 GiB
  double peak_bytes() const { return state_bytes + activation_bytes + framework_bytes; }
  double step_macs = 0;  // forward multiply-adds of one optimizer step (micro-batches x accumulation)
  // Forward multiply-adds of the whole run: every training stage's steps
  // (training.max_steps, an ldm job's ldm.autoencoder_steps); 0 when the
  // run is bounded by epochs, whose steps depend on the data.
  double run_macs = 0;
  std::vector<std::string> notes;  // what the estimate leaves out for this job
};

JobPlan plan_job(const JobSpec& job);

// Seconds of one optimizer step (forward and backward: 3x the forward
// multiply-adds) at rates measured on our machines (docs/performance.md,
// "The planner"): per CPU core, in bf16 autocast (Zen 5 with AVX512-BF16,
// the quick start) or float32; on one H100 (MAISI's diffusion UNet, fp16).
// Small networks run below the GPU rate (the quick start reached 2 of 4.9
// TMAC/s), so the GPU figure is a lower bound for them.
double cpu_seconds(double forward_macs, int cores, bool amp);
double h100_seconds(double forward_macs);

// "1.3 GiB".
std::string gibibytes(double bytes);

}  // namespace medsynth

#include "cli/seed_flags.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace medsynth::cli {

namespace {

// The seeds spell flags with '-' and with '_': both are looked up as '-'.
constexpr std::array<std::pair<std::string_view, std::string_view>, 33> k_seed_flags{{
    {"--num-steps", "the job field training.max_steps: `train JOB training.max_steps=N`"},
    {"--max-steps", "the job field training.max_steps: `train JOB training.max_steps=N`"},
    {"--steps", "the job field training.max_steps: `train JOB training.max_steps=N`"},
    {"--epochs", "the job field training.epochs: `train JOB training.epochs=N`"},
    {"--n-epochs", "the job field training.epochs: `train JOB training.epochs=N`"},
    {"--lr", "the job field training.lr: `train JOB training.lr=1e-4`"},
    {"--learning-rate", "the job field training.lr: `train JOB training.lr=1e-4`"},
    {"--batch-size", "the job field training.batch_size (per process): `train JOB training.batch_size=B`"},
    {"--amp", "the job field training.amp: `train JOB training.amp=true`"},
    {"--base-seed", "the job fields training.base_seed and generate.base_seed: `train JOB training.base_seed=42`"},
    {"--seed", "the job field training.base_seed: `train JOB training.base_seed=42`"},
    {"--num-workers", "the job field data.num_workers: `train JOB data.num_workers=N`"},
    {"--cache-rate", "the job field data.cache_rate: `train JOB data.cache_rate=0.7`"},
    {"--replace-rate", "the job field data.replace_rate: `train JOB data.replace_rate=0.3`"},
    {"--use-smart-cache", "the job field data.smart_cache: `train JOB data.smart_cache=true`"},
    {"--image-size", "the job field data.patch_size: `train JOB data.patch_size=[96,96,96]`"},
    {"--debug", "a few cases and steps: `train JOB data.max_volumes=8 training.max_steps=50`"},
    {"--doc", "the job field name: `train JOB name=NAME` (run directory runs/NAME-<date>)"},
    {"--log-dir", "the job field output.runs_dir or `train JOB --runs-dir DIR`"},
    {"--logdir", "the job field output.runs_dir or `train JOB --runs-dir DIR`"},
    {"--output-dir", "the job field output.runs_dir or `train JOB --runs-dir DIR`"},
    {"--data-path", "`--data DIR` (a folder of volumes, a datalist JSON or a CSV manifest)"},
    {"--data-root", "`--data DIR` (a BraTS folder, a folder of volumes or a datalist JSON)"},
    {"--csv-path", "`--data FILE.csv`"},
    {"--real-data", "`--data DIR`: without it the job's data.source (simulated phantoms) is used"},
    {"--num-gpus", "launch's `--nproc-per-node G`: `launch --nproc-per-node G train JOB`"},
    {"--gpus", "launch's `--nproc-per-node G` (or `gpu`, one per device): `launch --nproc-per-node gpu train JOB`"},
    {"--nproc-per-node", "launch's: `launch --nproc-per-node N train JOB`"},
    {"--num-nodes",
     "launch's `--nnodes N` (with --node-rank, --master-addr, --master-port), or the console's SSH/SLURM targets"},
    {"--world-size", "launch's `--nproc-per-node N` (and --nnodes across nodes)"},
    {"--resume-from-checkpoint",
     "`--resume RUN_DIR` (or `auto`); an NV-Generate .pt: `import-maisi` it, then `train RUN`"},
    {"--use-wandb", "W&B reads the run's TensorBoard files: `wandb sync --sync-tensorboard RUN/tb` (docs/events.md)"},
    {"--compile", "nothing: the engine is compiled; kernels and memory layout are chosen per device"},
}};

}  // namespace

std::optional<std::string> seed_flag_replacement(const std::string& flag) {
  std::string dashed = flag;
  std::replace(dashed.begin() + std::min<std::size_t>(2, dashed.size()), dashed.end(), '_', '-');
  for (const auto& [seed, replacement] : k_seed_flags)
    if (seed == dashed) return std::string(replacement);
  return std::nullopt;
}

}  // namespace medsynth::cli

// The arguments of `train`, shared by the train verb and by `launch ... train`
// (which parses the same options, then hands each worker a rebuilt command
// line), and the decision of which run directory a training run uses.
#pragma once

#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "contract/run_directory.hpp"
#include "train/training_test_hooks.hpp"

namespace CLI {
class App;
}

namespace medsynth::cli {

struct TrainArguments {
  std::string job_file;
  std::vector<std::string> overrides;
  std::string data;
  std::string resume;
  std::string init_weights;  // a fresh run from these weights (ignored when the run resumes)
  std::string runs_dir;
  bool json = false;
  bool quiet = false;
  bool no_progress = false;
  double progress_every_s = 30.0;  // off a terminal: a progress line at most this often (0: none)
  std::string inject_nan;  // hidden: "5,6,7" - the loss of these optimizer steps becomes NaN (NaN guard tests)
  std::string test_kill;   // hidden: "RANK:STEP" - that rank SIGKILLs itself after that step (launcher tests)
  std::string run_dir;  // hidden; set by the launcher: the run directory it created (all ranks share it)
};

void add_train_options(CLI::App& cmd, TrainArguments& a);

// The job with --data, overrides and --runs-dir applied.
JobSpec load_train_job(const TrainArguments& a);

struct ResolvedRun {
  RunDirectory run;
  std::string resume_from;  // checkpoint file, "" for a fresh start
};

// Rank 0's (or the launcher's) decision: a new run directory (job.yaml
// written), or the one --resume / checkpoint.resume names ("auto": the newest
// run of this job with a last checkpoint). UsageError for a missing target.
ResolvedRun resolve_run(const TrainArguments& a, const JobSpec& job);

// The trainer's test hooks that the hidden --inject-nan-at and
// --test-kill-self ask for; empty without them (every real run).
TrainingTestHooks training_test_hooks(const TrainArguments& a);

// The command line of a worker: `train` and the arguments minus --resume and
// --run-dir (the launcher sets those per attempt).
std::vector<std::string> worker_train_argv(const TrainArguments& a);

}  // namespace medsynth::cli

// Where an evaluation goes: evaluation.json and evaluation.txt in a folder,
// `eval/<metric>` and `memorization` events in an event stream, and the
// training volumes a job's evaluation compares against. Shared by
// `medsynth-engine evaluate` and the ldm pipeline's evaluate stage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "eval/evaluation.hpp"

namespace medsynth {

class EventWriter;

// The job's training volumes: for simulated data its training phantoms (the
// seeds training used), written as NIfTI files into `phantom_folder`; for a
// folder or CSV, the paths of its training split.
std::vector<std::string> training_volume_paths(const JobSpec& job, const std::string& phantom_folder);

// Writes OUT/evaluation.json and OUT/evaluation.txt (atomically) and returns
// the text to print: the table, then one "MEMORIZATION: ..." line per flag.
std::string write_evaluation_files(const EvaluationReport& report, const EvaluationOptions& options, const std::string& out_dir);

// One metric event per computed number (eval/<metric>, at `step`) and one
// `memorization` event per flagged volume.
void emit_evaluation_events(const EvaluationReport& report, const EvaluationOptions& options, EventWriter& events, std::int64_t step);

// The same numbers as TensorBoard scalars (eval/<metric>, at `step`) in
// `tb_dir` (OUT/tb): `tensorboard --logdir RUN` reads subfolders, so a run's
// evaluation (RUN/evaluation by default) shows beside its training curves
// (issue 53 item 10: eval/* never reached TensorBoard).
void write_evaluation_scalars(const EvaluationReport& report, const std::string& tb_dir, std::int64_t step);

}  // namespace medsynth

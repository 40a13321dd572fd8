// `medsynth-engine sweep JOB key=a,b [key2=x,y ...] [--nproc-per-node N]
// [--runs-dir DIR] [--data PATH] [--dry-run]`: trains the job once per
// combination of the swept values (cli/sweep_plan.hpp), one run after the
// other, each through `launch ... train --json` as a run of its own (its own
// run directory, resumable, visible in the console's history). It reports
// each run as it ends, then a table of the swept values, the status and the
// final metrics of every run on stdout, and writes it beside the runs as
// sweep-<job>-<time>.json (run directories relative to it, so the runs
// folder can be moved). A run that fails does not stop the sweep; the exit
// code says whether every run completed. Ctrl-C stops the running run (it
// saves a checkpoint) and ends the sweep.
#include <CLI/CLI.hpp>
#include <poll.h>
#include <signal.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/self_executable.hpp"
#include "cli/sweep.hpp"
#include "cli/signals.hpp"
#include "cli/sweep_plan.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "dist/worker_process.hpp"
#include "volume/atomic_file.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {

namespace {

struct RunOutcome {
  std::string status = "not run";  // completed, stopped, failed, not run
  std::string run_dir, error;
  std::map<std::string, double> metrics;
};

// Reads one event line of the run's --json stream into the outcome.
void take_event(const std::string& line, RunOutcome& outcome) {
  nlohmann::json e;
  try {
    e = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    return;  // not an event (a worker's stray print)
  }
  const std::string type = e.value("type", "");
  if (type == "run_started" && e.contains("run_dir")) outcome.run_dir = e["run_dir"].get<std::string>();
  if (type == "run_finished") {
    outcome.status = e.value("status", "completed");
    if (e.contains("metrics") && e["metrics"].is_object())
      for (const auto& [name, value] : e["metrics"].items())
        if (value.is_number()) outcome.metrics[name] = value.get<double>();
  }
  if (type == "run_failed") {
    outcome.status = "failed";
    outcome.error = e.value("message", e.value("error", ""));
  }
}

// Runs one combination to its end; false when the sweep was asked to stop.
bool run_one(const SweepArguments& a, const std::vector<std::string>& overrides, const std::string& tag,
             RunOutcome& outcome) {
  WorkerSpec spec;
  spec.program = self_executable();
  spec.args = {"launch", "--nproc-per-node", a.nproc, "train", a.job_file};
  spec.args.insert(spec.args.end(), overrides.begin(), overrides.end());
  spec.args.insert(spec.args.end(), {"--json", "--no-progress"});
  if (!a.runs_dir.empty()) spec.args.insert(spec.args.end(), {"--runs-dir", a.runs_dir});
  if (!a.data.empty()) spec.args.insert(spec.args.end(), {"--data", a.data});
  WorkerProcess run(spec);
  bool stop_sent = false;
  const auto on_stdout = [&outcome](const std::string& line) { take_event(line, outcome); };
  const auto on_stderr = [&tag](const std::string& line) { std::cerr << tag << line << "\n"; };
  while (run.poll() != WorkerState::exited) {
    pollfd fds[2] = {{run.stdout_fd(), POLLIN, 0}, {run.stderr_fd(), POLLIN, 0}};
    ::poll(fds, 2, 200);
    run.read_output(on_stdout, on_stderr);
    if (stop_flag().load() != 0 && !stop_sent) {
      run.send(SIGTERM);  // the run saves a checkpoint and stops
      stop_sent = true;
    }
  }
  run.read_output(on_stdout, on_stderr);
  if (run.exit_code() != 0 && outcome.status != "stopped") {
    outcome.status = "failed";
    if (outcome.error.empty()) {
      const auto tail = run.last_stderr_lines();
      outcome.error = describe_worker_status(run) + (tail.empty() ? "" : ": " + tail.back());
    }
  } else if (outcome.status == "not run") {
    outcome.status = "completed";
  }
  return !stop_sent;
}

std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(5) << v;
  return s.str();
}

// The table on stdout: #, status, the swept values, the metrics, the run.
void print_table(const SweepPlan& plan, const std::vector<RunOutcome>& outcomes) {
  std::set<std::string> metric_names;
  for (const auto& o : outcomes)
    for (const auto& [name, value] : o.metrics) metric_names.insert(name);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"#", "status"};
  header.insert(header.end(), plan.axes.begin(), plan.axes.end());
  header.insert(header.end(), metric_names.begin(), metric_names.end());
  header.push_back("run");
  rows.push_back(header);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    std::vector<std::string> row = {std::to_string(i + 1), outcomes[i].status};
    row.insert(row.end(), plan.values[i].begin(), plan.values[i].end());
    for (const auto& name : metric_names) {
      const auto it = outcomes[i].metrics.find(name);
      row.push_back(it == outcomes[i].metrics.end() ? "-" : number(it->second));
    }
    row.push_back(outcomes[i].run_dir.empty() ? "-" : outcomes[i].run_dir);
    rows.push_back(row);
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c)
      std::cout << std::left << std::setw(static_cast<int>(c + 1 < row.size() ? width[c] + 2 : 0)) << row[c];
    std::cout << "\n";
  }
}

// sweep-<job>-<UTC time>.json beside the runs; run directories relative to it.
std::string write_summary(const SweepArguments& a, const JobSpec& job, const SweepPlan& plan,
                          const std::vector<RunOutcome>& outcomes) {
  fs::path folder = a.runs_dir.empty() ? fs::path(job.output.runs_dir) : fs::path(a.runs_dir);
  for (const auto& o : outcomes)
    if (!o.run_dir.empty()) {
      folder = fs::path(o.run_dir).parent_path();
      break;
    }
  std::error_code ec;
  fs::create_directories(folder, ec);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  const fs::path path = folder / ("sweep-" + job.name + "-" + stamp + ".json");
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t k = 0; k < plan.axes.size(); ++k) values[plan.axes[k]] = plan.values[i][k];
    const auto& o = outcomes[i];
    runs.push_back({{"overrides", plan.runs[i]},
                    {"values", values},
                    {"status", o.status},
                    {"metrics", o.metrics},
                    {"run_dir", o.run_dir.empty() ? "" : fs::path(o.run_dir).lexically_relative(folder).string()},
                    {"error", o.error}});
  }
  const nlohmann::json summary = {
      {"job", fs::absolute(a.job_file).string()}, {"axes", plan.axes}, {"nproc_per_node", a.nproc}, {"runs", runs}};
  write_string_atomically(path.string(), summary.dump(2) + "\n");
  return path.string();
}

}  // namespace

int run_sweep(const SweepArguments& a) {
  const SweepPlan plan = plan_sweep(a.overrides);
  if (plan.axes.empty())
    throw UsageError("sweep: no override lists alternatives (key=a,b); for one run use train or launch");
  // The job with each run's overrides must load: a typo is found before the first run starts.
  JobSpec job;
  for (const auto& overrides : plan.runs) job = load_job_file_with_overrides(a.job_file, overrides);
  std::cerr << "sweep: " << plan.runs.size() << " runs of " << a.job_file << " over";
  for (const auto& axis : plan.axes) std::cerr << " " << axis;
  std::cerr << "\n";
  if (a.dry_run) {
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
      std::cout << i + 1;
      for (std::size_t k = 0; k < plan.axes.size(); ++k) std::cout << " " << plan.axes[k] << "=" << plan.values[i][k];
      std::cout << "\n";
    }
    return 0;
  }
  install_stop_handlers();
  std::vector<RunOutcome> outcomes(plan.runs.size());
  bool stopped = false;
  for (std::size_t i = 0; i < plan.runs.size() && !stopped; ++i) {
    std::string label;
    for (std::size_t k = 0; k < plan.axes.size(); ++k) label += (k ? " " : "") + plan.axes[k] + "=" + plan.values[i][k];
    const std::string tag = "[sweep " + std::to_string(i + 1) + "/" + std::to_string(plan.runs.size()) + "] ";
    std::cerr << "sweep: run " << i + 1 << "/" << plan.runs.size() << ": " << label << std::endl;
    stopped = !run_one(a, plan.runs[i], tag, outcomes[i]);
    const auto& o = outcomes[i];
    std::cerr << "sweep: run " << i + 1 << "/" << plan.runs.size() << " " << o.status;
    for (const auto& [name, value] : o.metrics) std::cerr << ", " << name << " " << number(value);
    if (!o.error.empty()) std::cerr << ": " << o.error;
    std::cerr << std::endl;
  }
  print_table(plan, outcomes);
  std::cerr << "sweep: summary written to " << write_summary(a, job, plan, outcomes) << "\n";
  if (stopped) throw Interrupted("sweep stopped by signal");
  for (const auto& o : outcomes)
    if (o.status != "completed") return 1;
  return 0;
}

Action add_sweep_verb(CLI::App& app) {
  auto a = std::make_shared<SweepArguments>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Train a job once per combination of swept values (key=a,b ...), one run after the other, and tabulate them");
  cmd->add_option("job", a->job_file, "Job file")->required()->check(CLI::ExistingFile);
  cmd->add_option("overrides", a->overrides,
                  "key=value overrides; key=a,b,c sweeps the key over a, b and c (commas inside [] do not split)");
  cmd->add_option("--nproc-per-node", a->nproc, "Workers per run, as launch takes it (a number, gpu, auto)")
      ->capture_default_str();
  cmd->add_option("--runs-dir", a->runs_dir, "Where the runs go (default: the job's output.runs_dir)");
  cmd->add_option("--data", a->data, "Training data for every run (as train --data)");
  cmd->add_flag("--dry-run", a->dry_run, "List the runs and check each one's job; train nothing");
  return [a] { return run_sweep(*a); };
}

}  // namespace medsynth::cli

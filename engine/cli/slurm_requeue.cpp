// SIGUSR1 -> requeue under SLURM; SLURM_RESTART_COUNT -> resume.
#include "cli/slurm_requeue.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"

extern char** environ;

namespace medsynth::cli {
namespace {
bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

std::optional<std::string> slurm_job_id(const EnvLookup& env) {
  auto id = env("SLURM_JOB_ID");
  if (!id || id->empty()) return std::nullopt;
  // Only digits reach scontrol: the id comes from the environment, and a
  // requeue of the wrong job would be worse than none.
  if (!all_digits(*id)) throw UsageError("SLURM_JOB_ID '" + *id + "' is not a job id (digits only)");
  return id;
}

int slurm_restart_count(const EnvLookup& env) {
  auto count = env("SLURM_RESTART_COUNT");
  if (!count || count->empty()) return 0;
  if (!all_digits(*count)) throw UsageError("SLURM_RESTART_COUNT '" + *count + "' is not a number");
  return std::stoi(*count);
}

std::string requeue_slurm_job(const std::string& job_id) {
  if (!all_digits(job_id)) return "refusing to requeue '" + job_id + "': not a job id";
  std::vector<std::string> args{"scontrol", "requeue", job_id};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = posix_spawnp(&pid, "scontrol", nullptr, nullptr, argv.data(), environ); rc != 0)
    return std::string("could not run scontrol: ") + std::strerror(rc);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::string("waiting for scontrol: ") + std::strerror(errno);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return "scontrol requeue " + job_id + " failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
}

}  // namespace medsynth::cli

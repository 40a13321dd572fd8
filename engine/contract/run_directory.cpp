#include "contract/run_directory.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::string safe_name(const std::string& name) {
  std::string out;
  for (char c : name)
    out.push_back((std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_');
  return out.empty() ? "job" : out;
}

}  // namespace

RunDirectory create_run_directory(const std::string& runs_dir, const std::string& job_name) {
  std::error_code ec;
  fs::create_directories(runs_dir, ec);
  if (ec) throw RuntimeError("cannot create runs directory " + runs_dir + ": " + ec.message());
  const std::string base = (fs::path(runs_dir) / (safe_name(job_name) + "-" + timestamp())).string();
  std::string root = base;
  for (int n = 2; !fs::create_directory(root, ec); ++n) {
    if (ec) throw RuntimeError("cannot create run directory " + root + ": " + ec.message());
    root = base + "-" + std::to_string(n);
  }
  RunDirectory run{fs::absolute(root).lexically_normal().string()};
  for (const auto& sub :
       {run.logs_dir(), run.checkpoints_dir(), run.embedding_dir(), run.output_dir(), run.tensorboard_dir()}) {
    fs::create_directories(sub, ec);
    if (ec) throw RuntimeError("cannot create " + sub + ": " + ec.message());
  }
  return run;
}

RunDirectory open_run_directory(const std::string& root) {
  RunDirectory run{fs::absolute(root).lexically_normal().string()};
  if (!fs::is_regular_file(run.job_file())) throw UsageError(root + ": not a run directory (no job.yaml)");
  std::error_code ec;
  for (const auto& sub :
       {run.logs_dir(), run.checkpoints_dir(), run.embedding_dir(), run.output_dir(), run.tensorboard_dir()})
    fs::create_directories(sub, ec);
  return run;
}

}  // namespace medsynth

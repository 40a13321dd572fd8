#include "events/event_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "events/pipeline_eta.hpp"
#include "events/tensorboard_writer.hpp"
#include "events/time_format.hpp"

namespace medsynth {
namespace {

namespace key = event_schema::key;

// ordered_json keeps v/type/time/rank first, which makes the file readable by eye.
using Json = nlohmann::ordered_json;

Json base_event(std::string_view type, int rank) {
  Json j;
  j[key::v] = k_event_schema_version;
  j[key::type] = type;
  j[key::time] = format_iso8601_utc_ms(std::chrono::system_clock::now());
  j[key::rank] = rank;
  return j;
}

std::string_view nonfinite_name(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

// JSON has no NaN/Inf: such numbers become null (and, where a reader must be
// able to tell a diverged loss from a missing one, a "nonfinite" marker).
Json number_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json to_json(const EventValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>) {
          return number_or_null(v);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          Json arr = Json::array();
          for (double d : v) arr.push_back(number_or_null(d));
          return arr;
        } else {
          return Json(v);
        }
      },
      value.storage());
}

Json to_json(const EventFields& fields) {
  Json obj = Json::object();
  for (const auto& [key, value] : fields) obj[key] = to_json(value);
  return obj;
}

// error_handler_t::replace: invalid UTF-8 (a file name from a foreign file
// system, a torn message) becomes U+FFFD instead of an exception or bad JSON.
std::string serialize(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace) + '\n'; }

// `written` tells a caller how much of a failed write landed.
bool write_all(int fd, const std::string& bytes, std::size_t* written = nullptr) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (written) *written = done;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (written) *written = done;
  return true;
}

}  // namespace

std::string_view to_string(CheckpointKind kind) {
  switch (kind) {
    case CheckpointKind::last: return "last";
    case CheckpointKind::best: return "best";
    case CheckpointKind::rollback: return "rollback";
  }
  return "last";
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::runtime: return "runtime";
    case ErrorKind::usage: return "usage";
    case ErrorKind::data: return "data";
    case ErrorKind::storage: return "storage";
    case ErrorKind::interrupted: return "interrupted";
  }
  return "runtime";
}

EventWriter::EventWriter(EventWriterOptions options) : options_(std::move(options)) {
  if (options_.path.empty()) {
    if (!options_.echo_stdout) throw UsageError("EventWriterOptions.path: must not be empty (or echo_stdout set)");
    return;  // stdout only
  }
  if (options_.path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.path.parent_path(), ec);
    if (ec) throw RuntimeError(options_.path.parent_path().string() + ": cannot create directory: " + ec.message());
  }
  // O_APPEND makes each write(2) land whole at the end even when the launcher
  // and rank 0 append to the same file.
  fd_ = ::open(options_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw RuntimeError(options_.path.string() + ": cannot open event stream: " + std::strerror(errno));
}

EventWriter::~EventWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void EventWriter::attach_tensorboard(std::shared_ptr<TensorBoardWriter> tensorboard) {
  std::lock_guard lock(mutex_);
  tensorboard_ = std::move(tensorboard);
}

void EventWriter::write_line(const std::string& line) {
  std::lock_guard lock(mutex_);
  const std::string& bytes = torn_ ? '\n' + line : line;
  std::size_t written = 0;
  if (fd_ >= 0 && !write_all(fd_, bytes, &written)) {
    const int error = errno;
    const std::string message = options_.path.string() + ": cannot write event: " + std::strerror(error);
    // Only what this call wrote can be torn; a newline that landed and then
    // nothing leaves the file whole again.
    torn_ = (torn_ && written == 0) || (written > 0 && !(torn_ && written == 1));
    throw_write_error(message, error);
  }
  torn_ = false;
  if (options_.echo_stdout && !write_all(STDOUT_FILENO, line))
    throw RuntimeError(std::string("stdout: cannot write event: ") + std::strerror(errno));
}

void EventWriter::run_started(const RunStartedEvent& e) {
  Json j = base_event(event_schema::run_started, options_.rank);
  j[key::run_dir] = e.run_dir;
  j[key::job_name] = e.job_name;
  j[key::task] = e.task;
  j[key::config_hash] = e.config_hash;
  j[key::world_size] = e.world_size;
  j[key::effective_batch] = e.effective_batch;
  j[key::total_steps] = e.total_steps;
  j[key::device] = e.device;
  j[key::extra] = to_json(e.extra);
  write_line(serialize(j));
}

void EventWriter::progress(std::int64_t step, std::int64_t total_steps, std::int64_t epoch, std::int64_t epochs,
                           double samples_per_s, std::optional<double> eta_s) {
  Json j = base_event(event_schema::progress, options_.rank);
  j[key::step] = step;
  j[key::total_steps] = total_steps;
  j[key::epoch] = epoch;
  j[key::epochs] = epochs;
  j[key::samples_per_s] = number_or_null(samples_per_s);
  j[key::eta_s] = eta_s ? number_or_null(*eta_s) : Json(nullptr);
  write_line(serialize(j));
  if (const auto& f = options_.forward; f.to) {
    const std::int64_t pipeline_step = f.step_offset + step,
                       pipeline_total = std::max(f.total_steps, f.step_offset + total_steps);
    const auto pipeline_eta = f.eta ? f.eta->remaining_s(pipeline_step, eta_s, total_steps - step,
                                                         pipeline_total - f.step_offset - total_steps)
                                    : eta_s;
    f.to->progress(pipeline_step, pipeline_total, epoch, epochs, samples_per_s, pipeline_eta);
  }
}

void EventWriter::metric(std::int64_t step, std::string_view name, double value) {
  Json j = base_event(event_schema::metric, options_.rank);
  j[key::step] = step;
  j[key::name] = name;
  j[key::value] = number_or_null(value);
  if (!std::isfinite(value)) j[key::nonfinite] = nonfinite_name(value);
  write_line(serialize(j));

  std::shared_ptr<TensorBoardWriter> tensorboard;
  {
    std::lock_guard lock(mutex_);
    tensorboard = tensorboard_;
  }
  if (tensorboard) tensorboard->add_scalar(name, value, step);
  if (options_.forward.to) options_.forward.to->metric(step, options_.forward.prefix + std::string(name), value);
}

void EventWriter::log(LogLevel level, std::string_view message) {
  Json j = base_event(event_schema::log, options_.rank);
  j[key::level] = to_string(level);
  j[key::message] = message;
  write_line(serialize(j));
  if (options_.forward.to) options_.forward.to->log(level, "[" + options_.forward.prefix + "] " + std::string(message));
}

void EventWriter::checkpoint(std::string_view path, std::int64_t step, CheckpointKind kind,
                             std::string_view metric_name, std::optional<double> metric_value) {
  Json j = base_event(event_schema::checkpoint, options_.rank);
  j[key::path] = path;
  j[key::step] = step;
  j[key::kind] = to_string(kind);
  if (!metric_name.empty()) j[key::metric] = metric_name;
  if (metric_value) {
    j[key::value] = number_or_null(*metric_value);
    if (!std::isfinite(*metric_value)) j[key::nonfinite] = nonfinite_name(*metric_value);
  }
  write_line(serialize(j));
  if (options_.forward.to) {
    const std::string forwarded_metric = metric_name.empty() ? std::string() : options_.forward.prefix + std::string(metric_name);
    options_.forward.to->checkpoint(path, step, kind, forwarded_metric, metric_value);
  }
}

void EventWriter::artifact(std::string_view path, std::string_view kind, std::int64_t step,
                           const EventFields& extra) {
  Json j = base_event(event_schema::artifact, options_.rank);
  j[key::path] = path;
  j[key::kind] = kind;
  j[key::step] = step;
  j[key::extra] = to_json(extra);
  write_line(serialize(j));
  if (options_.forward.to) options_.forward.to->artifact(path, kind, step, extra);
}

void EventWriter::restart(int attempt, std::string_view reason) {
  Json j = base_event(event_schema::restart, options_.rank);
  j[key::attempt] = attempt;
  j[key::reason] = reason;
  write_line(serialize(j));
}

void EventWriter::run_finished(std::string_view status, const std::map<std::string, double>& final_metrics,
                               double duration_s, const EventFields& extra) {
  Json j = base_event(event_schema::run_finished, options_.rank);
  j[key::status] = status;
  Json metrics = Json::object();
  for (const auto& [name, value] : final_metrics) metrics[name] = number_or_null(value);
  j[key::metrics] = std::move(metrics);
  j[key::duration_s] = number_or_null(duration_s);
  if (!extra.empty()) j[key::extra] = to_json(extra);
  write_line(serialize(j));
}

void EventWriter::run_failed(ErrorKind kind, std::string_view message, int exit_code) {
  Json j = base_event(event_schema::run_failed, options_.rank);
  j[key::error] = to_string(kind);
  j[key::message] = message;
  j[key::exit_code] = exit_code;
  write_line(serialize(j));
}

void EventWriter::emit(std::string_view type, const EventFields& fields) {
  if (!event_schema::is_known_type(type))
    throw UsageError("event type \"" + std::string(type) + "\" is not in engine/events/event_schema.hpp (add it there, to the console's reader and to docs/events.md)");
  Json j = base_event(type, options_.rank);
  for (const auto& [key, value] : fields) {
    if (j.contains(key)) throw UsageError("event field \"" + key + "\" is reserved or repeated (type " + std::string(type) + ")");
    j[key] = to_json(value);
  }
  write_line(serialize(j));
}

}  // namespace medsynth

#include "train/training_session.hpp"

#include "dist/gradient_sync.hpp"
#include "events/event_writer.hpp"
#include "events/progress_bar.hpp"
#include "events/run_logger.hpp"
#include "state/checkpoint_store.hpp"
#include "state/ema_weights.hpp"
#include "train/task.hpp"

namespace medsynth {

TrainingSession::TrainingSession(const JobSpec& j, const TrainerOptions& o)
    : job(j),
      options(o),
      rank(o.dist ? o.dist->rank() : o.rank),
      world_size(o.dist ? o.dist->world_size() : o.world_size),
      rank0(rank == 0),
      dist(o.dist),
      hooks(o.test_hooks, rank) {}

TrainingSession::~TrainingSession() = default;

void TrainingSession::info(const std::string& message) { logger->info(message); }

void TrainingSession::warn(const std::string& message) { logger->warn(message); }

void TrainingSession::metric(const std::string& name, double value) {
  if (events) events->metric(progress.step, name, value);
}

double TrainingSession::current_lr() const { return learning_rate_at(schedule, progress.step) * progress.lr_factor; }

void TrainingSession::release_data() { data.reset(); }

}  // namespace medsynth

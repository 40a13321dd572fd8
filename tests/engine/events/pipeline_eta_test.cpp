// Issue 38: a pipeline's ETA covers every training stage, not only the
// running one. The stages after the running one are estimated at the mean
// time per step measured over the pipeline (the running stage's own rate
// before a step has passed), and a stage's progress forwarded into the
// pipeline's stream carries that ETA.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "events/event_writer.hpp"
#include "events/pipeline_eta.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  PipelineEta::Clock function() {
    return [this] { return now; };
  }
};

TEST(PipelineEta, LaterStagesAreEstimatedAtTheMeanTimePerStepMeasuredSoFar) {
  FakeClock clock;
  PipelineEta eta(clock.function());
  // Autoencoder stage, step 10 of 100 (its own estimate 90 s: 1 s/step);
  // 400 diffusion steps follow. Nothing measured yet: its rate, 1 s/step.
  EXPECT_DOUBLE_EQ(*eta.remaining_s(10, 90.0, 90, 400), 90.0 + 400.0);
  // 20 steps in 40 s later: 2 s/step measured over the pipeline.
  clock.now += 40s;
  EXPECT_DOUBLE_EQ(*eta.remaining_s(30, 70.0, 70, 400), 70.0 + 800.0);
  // The last training stage: only its own estimate.
  EXPECT_DOUBLE_EQ(*eta.remaining_s(450, 50.0, 50, 0), 50.0);
  // Unknown while the stage's own is unknown.
  EXPECT_FALSE(eta.remaining_s(460, std::nullopt, 40, 0));
}

TEST(PipelineEta, AForwardedStageProgressCarriesThePipelinesEta) {
  test::TempDir dir("pipeline-eta");
  FakeClock clock;
  auto eta = std::make_shared<PipelineEta>(clock.function());
  EventWriter pipeline({.path = dir / "events.jsonl"});
  EventWriter stage({.path = dir / "autoencoder" / "events.jsonl",
                     .forward = {&pipeline, "autoencoder/", /*step_offset=*/0, /*total_steps=*/500, eta}});
  stage.progress(40, 100, 1, 1, 8.0, 6.0);  // 6 s left in this stage, 400 steps after it
  std::istringstream in(test::read_bytes(dir / "events.jsonl"));
  std::string line;
  std::getline(in, line);
  const auto e = nlohmann::json::parse(line);
  EXPECT_EQ(e.at("step"), 40);
  EXPECT_EQ(e.at("total_steps"), 500);
  EXPECT_DOUBLE_EQ(e.at("eta_s").get<double>(), 6.0 + 400 * 0.1);  // the stage's rate: 6 s / 60 steps
  // The stage's own stream keeps the stage's own ETA.
  std::istringstream own(test::read_bytes(dir / "autoencoder" / "events.jsonl"));
  std::getline(own, line);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(line).at("eta_s").get<double>(), 6.0);
}

}  // namespace
}  // namespace medsynth

// Shared by the ui tests: where the engine binary and the test output live,
// the overrides that shrink a job to a few seconds of CPU, and running the
// real engine once to make a run directory to look at.
#pragma once

#include <QString>
#include <QStringList>

namespace medsynth::ui::test {

// $MEDSYNTH_ENGINE, else the engine of this build tree.
QString engine_path();
// <build>/test-output/ui (created).
QString output_dir();
// The repository's root (fixtures under tests/).
QString source_dir();
// The repository's resources/jobs/quickstart.yaml.
QString quickstart_job();

// Tiny phantoms, a tiny model, `steps` steps validated every `val_every`: a
// run of a few seconds that still writes every kind of event.
QStringList tiny_job_overrides(int steps = 30, int val_every = 15);

// `medsynth-engine launch --help` works (the distributed launcher exists).
bool engine_has_launch();

// Runs the engine to completion (blocking: tests only) on quickstart.yaml with
// the tiny overrides in runs_dir; with processes > 1 through `launch`. Returns
// the run directory, or "" with *error (the engine's stderr tail).
QString run_tiny_job(const QString& runs_dir, int processes, QString* error, int steps = 30, int val_every = 15);

// Copies a run directory recorded by tests/app/fixtures/make_fixtures.sh
// (events.jsonl, job.yaml, logs/, output/) to dest, rewriting the run
// directory its events name (the engine's temporary folder) to dest, so that
// its checkpoints and images resolve there. False with *error otherwise.
bool relocate_fixture_run(const QString& fixture_dir, const QString& dest, QString* error);

}  // namespace medsynth::ui::test

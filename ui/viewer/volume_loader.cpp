#include "ui/viewer/volume_loader.hpp"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "core/error.hpp"

namespace medsynth::ui {

namespace {

struct LoadOutcome {
  LoadedVolume volume;
  QString error;
};

}  // namespace

LoadedVolume load_volume_file(const QString& path, const VolumeReadOptions& read_options,
                              const PercentileOptions& percentiles) {
  std::vector<std::string> warnings;
  auto volume = std::make_shared<Volume>(read_volume(path.toStdString(), read_options, &warnings));
  LoadedVolume out;
  out.path = path;
  out.stats = intensity_stats(volume->voxels.data(), volume->voxels.size(), percentiles);
  for (const auto& w : warnings) out.warnings << QString::fromStdString(w);
  out.volume = std::move(volume);
  return out;
}

QString describe_load_error(const QString& path, const std::exception& error) {
  // DataError's message already starts with the path; others get it added.
  if (dynamic_cast<const DataError*>(&error) != nullptr) return QString::fromStdString(error.what());
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
    return QStringLiteral("%1: not enough memory to load this volume").arg(path);
  return QStringLiteral("%1: %2").arg(path, QString::fromStdString(error.what()));
}

VolumeLoader::VolumeLoader(QObject* parent, VolumeReadOptions read_options, PercentileOptions percentiles)
    : QObject(parent), read_options_(read_options), percentiles_(percentiles) {
  qRegisterMetaType<medsynth::ui::LoadedVolume>();
}

VolumeLoader::~VolumeLoader() = default;

void VolumeLoader::load(const QString& path) {
  const quint64 generation = ++generation_;
  ++pending_;
  auto* watcher = new QFutureWatcher<LoadOutcome>(this);
  connect(watcher, &QFutureWatcher<LoadOutcome>::finished, this, [this, watcher, generation, path] {
    --pending_;
    const LoadOutcome outcome = watcher->result();
    watcher->deleteLater();
    if (generation != generation_) return;  // superseded by a newer load
    if (outcome.error.isEmpty())
      emit loaded(outcome.volume);
    else
      emit failed(path, outcome.error);
  });
  const VolumeReadOptions read_options = read_options_;
  const PercentileOptions percentiles = percentiles_;
  watcher->setFuture(QtConcurrent::run([path, read_options, percentiles]() -> LoadOutcome {
    LoadOutcome outcome;
    try {
      outcome.volume = load_volume_file(path, read_options, percentiles);
    } catch (const std::exception& e) {
      outcome.error = describe_load_error(path, e);
    } catch (...) {
      outcome.error = QStringLiteral("%1: unknown error while reading").arg(path);
    }
    return outcome;
  }));
}

}  // namespace medsynth::ui

#include "ui/viewer/volume_loader.hpp"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "core/error.hpp"
#include "contract/volume_provenance.hpp"

namespace medsynth::ui {

namespace {

struct LoadOutcome {
  LoadedVolume volume;
  QString error;
};

// "Open with medsynth" on one file of a DICOM series (application/dicom: the
// "DICM" preamble at byte 128, or a .dcm name) means its series: read the folder.
QString series_folder_of_dicom_file(const QString& path) {
  const QFileInfo info(path);
  if (!info.isFile()) return {};
  if (path.endsWith(QLatin1String(".dcm"), Qt::CaseInsensitive)) return info.absolutePath();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QByteArray head = file.read(132);
  return head.size() == 132 && head.mid(128, 4) == "DICM" ? info.absolutePath() : QString();
}

}  // namespace

LoadedVolume load_volume_file(const QString& path, const VolumeReadOptions& read_options,
                              const PercentileOptions& percentiles) {
  std::vector<std::string> warnings;
  const QString series_folder = series_folder_of_dicom_file(path);
  const QString source = series_folder.isEmpty() ? path : series_folder;
  auto volume = std::make_shared<Volume>(read_volume(source.toStdString(), read_options, &warnings));
  LoadedVolume out;
  out.path = source;
  if (!series_folder.isEmpty())
    out.warnings << QStringLiteral("%1 is one file of a DICOM series: showing the series in %2")
                        .arg(QFileInfo(path).fileName(), series_folder);
  out.stats = intensity_stats(volume->voxels.data(), volume->voxels.size(), percentiles);
  for (const auto& w : warnings) out.warnings << QString::fromStdString(w);
  try {
    out.provenance = read_volume_provenance(source.toStdString());
  } catch (const DataError& e) {
    // The image is fine; only its record of how it was made is not.
    out.warnings << QStringLiteral("provenance not readable: %1").arg(QString::fromStdString(e.reason()));
  }
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

// MachineProbe: `<engine> info --json` in a QProcess, parsed with QJsonDocument.
#include "app/launch/machine_probe.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include "app/launch/local_launcher.hpp"

namespace medsynth::app {

MachineProbe::MachineProbe(QObject* parent) : QObject(parent) {
  static const int registered = [] {
    qRegisterMetaType<MachineInfo>("medsynth::app::MachineInfo");
    return 0;
  }();
  Q_UNUSED(registered);
}

MachineProbe::~MachineProbe() {
  if (process_ && process_->state() != QProcess::NotRunning) {
    disconnect(process_, nullptr, this, nullptr);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

bool MachineProbe::is_running() const { return process_ && process_->state() != QProcess::NotRunning; }

void MachineProbe::probe(const QString& engine) {
  if (is_running()) return;  // the running probe will answer
  const QString program = engine.isEmpty() ? LocalLauncher::engine_path() : engine;
  if (program.isEmpty()) {
    emit failed(LocalLauncher::engine_not_found());
    return;
  }
  if (process_) process_->deleteLater();
  process_ = new QProcess(this);
  auto* process = process_;
  auto done = std::make_shared<bool>(false);
  auto fail = [this, done](const QString& reason) {
    if (std::exchange(*done, true)) return;
    emit failed(reason);
  };
  connect(process, &QProcess::errorOccurred, this, [process, program, fail](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) fail(QStringLiteral("could not start %1: %2").arg(program, process->errorString()));
  });
  connect(process, &QProcess::finished, this, [this, process, program, done, fail](int code, QProcess::ExitStatus status) {
    if (status != QProcess::NormalExit || code != 0) {
      fail(QStringLiteral("%1 info --json failed (exit code %2): %3")
               .arg(program)
               .arg(status == QProcess::NormalExit ? code : -1)
               .arg(QString::fromUtf8(process->readAllStandardError()).trimmed()));
      return;
    }
    QString error;
    const auto info = parse(process->readAllStandardOutput(), &error);
    if (!info) {
      fail(QStringLiteral("%1 info --json: %2").arg(program, error));
      return;
    }
    if (!std::exchange(*done, true)) emit probed(*info);
  });
  // An engine that hangs (a broken driver probing CUDA) must not leave the ui waiting.
  QTimer::singleShot(timeout_ms_, process, [process, fail, this] {
    if (process->state() == QProcess::NotRunning) return;
    fail(QStringLiteral("info --json did not answer within %1 s").arg(timeout_ms_ / 1000));
    process->kill();
  });
  process->start(program, {QStringLiteral("info"), QStringLiteral("--json")});
}

std::optional<MachineInfo> MachineProbe::parse(QByteArrayView json, QString* error) {
  auto refuse = [error](const QString& why) -> std::optional<MachineInfo> {
    if (error) *error = why;
    return std::nullopt;
  };
  QJsonParseError parse_error{};
  const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &parse_error);
  if (parse_error.error != QJsonParseError::NoError)
    return refuse(QStringLiteral("not JSON at offset %1: %2").arg(parse_error.offset).arg(parse_error.errorString()));
  if (!doc.isObject()) return refuse(QStringLiteral("expected a JSON object"));
  const QJsonObject o = doc.object();
  if (!o.value(QLatin1String("medsynth")).isString()) return refuse(QStringLiteral("medsynth: missing (the engine's version)"));
  if (!o.value(QLatin1String("libtorch")).isString()) return refuse(QStringLiteral("libtorch: missing"));

  MachineInfo info;
  info.engine_version = o.value(QLatin1String("medsynth")).toString();
  info.libtorch = o.value(QLatin1String("libtorch")).toString();
  info.cuda = o.value(QLatin1String("cuda_available")).toBool();
  const QString nccl = o.value(QLatin1String("nccl")).toString();
  info.nccl = nccl == QLatin1String("unavailable") ? QString() : nccl;
  info.gloo = o.value(QLatin1String("gloo")).toBool();
  info.memory_gib = o.value(QLatin1String("memory_gib")).toDouble();
  info.threads = o.value(QLatin1String("threads")).toInt();
  info.cores = o.value(QLatin1String("hardware_threads")).toInt();
  for (const auto& d : o.value(QLatin1String("devices")).toArray()) {
    const QJsonObject device = d.toObject();
    const QString type = device.value(QLatin1String("type")).toString();
    if (type == QLatin1String("cpu")) {
      info.cpu_model = device.value(QLatin1String("name")).toString();
      if (info.cores == 0) info.cores = device.value(QLatin1String("cores")).toInt();
    } else if (type == QLatin1String("cuda")) {
      const QString name = device.value(QLatin1String("name")).toString();
      info.gpus << (name.isEmpty() ? QStringLiteral("cuda:%1").arg(device.value(QLatin1String("index")).toInt()) : name);
    }
  }
  if (info.cores <= 0) return refuse(QStringLiteral("hardware_threads: missing (and no cpu device with cores)"));
  return info;
}

}  // namespace medsynth::app

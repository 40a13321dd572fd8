// What this machine (through its engine) can run: cores, memory, GPUs, CUDA,
// LibTorch/NCCL/Gloo. Runs `<engine> info --json` asynchronously and parses
// it. Used by the ui's cluster view and launch dialog (processes per node).
#pragma once

#include <QByteArrayView>
#include <QMetaType>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <optional>

namespace medsynth::app {

struct MachineInfo {
  int cores = 0;
  double memory_gib = 0.0;
  QStringList gpus;       // device names, empty without CUDA
  bool cuda = false;
  QString libtorch;       // version
  QString nccl;           // version, empty when not built in
  bool gloo = false;
  QString engine_version;
  QString cpu_model;
  int threads = 0;        // LibTorch's intra-op threads by default
};

class MachineProbe : public QObject {
  Q_OBJECT

 public:
  explicit MachineProbe(QObject* parent = nullptr);
  ~MachineProbe() override;

  // Runs the engine (empty: LocalLauncher::engine_path()). Emits probed or failed once.
  void probe(const QString& engine = {});
  bool is_running() const;

  // Parses `info --json`. Missing optional fields keep their defaults; a
  // document that is not a JSON object, or lacks the core fields, is refused.
  static std::optional<MachineInfo> parse(QByteArrayView json, QString* error);

 signals:
  void probed(const medsynth::app::MachineInfo& info);
  void failed(const QString& reason);

 private:
  QProcess* process_ = nullptr;
  int timeout_ms_ = 30000;
};

}  // namespace medsynth::app

Q_DECLARE_METATYPE(medsynth::app::MachineInfo)

// Launcher: the shared part of every launcher (the model it owns).
#include "app/launch/launcher.hpp"

namespace medsynth::app {

Launcher::Launcher(QObject* parent) : QObject(parent) {
  static const int registered = [] {
    qRegisterMetaType<RunStatus>("medsynth::app::RunStatus");
    return 0;
  }();
  Q_UNUSED(registered);
}

Launcher::~Launcher() = default;

}  // namespace medsynth::app

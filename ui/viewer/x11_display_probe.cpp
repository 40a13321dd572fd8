#include "ui/viewer/x11_display_probe.hpp"

#include <cstdlib>

#include <X11/Xlib.h>

namespace medsynth::ui {

bool x11_display_available() {
  const char* name = std::getenv("DISPLAY");
  if (name == nullptr || *name == '\0') return false;
  Display* display = XOpenDisplay(name);
  if (display == nullptr) return false;
  XCloseDisplay(display);
  return true;
}

}  // namespace medsynth::ui

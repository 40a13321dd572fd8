// Whether an X display can be opened. VTK 9.1's X render window aborts the
// process without one (and this VTK has no EGL/OSMesa), so the headless
// snapshot asks first and reports "run it under xvfb-run" instead. Xlib stays
// in its own TU: its macros (None, Bool, Status) clash with Qt's and VTK's.
#pragma once

namespace medsynth::ui {

bool x11_display_available();

}  // namespace medsynth::ui

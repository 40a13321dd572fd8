// Which OpenGL implementation draws the viewer, asked once per process. On a
// software rasteriser (Mesa llvmpipe/softpipe, as under Xvfb) GPU ray casting
// is ~6x slower than VTK's CPU ray caster, so the 3D view switches to CPU ray
// casting there (PLATFORM-NOTES.md). Set by the first VtkOpenGLWidget to
// initialise or by the headless snapshot; read by the volume scenes.
#pragma once

#include <QString>

namespace medsynth::ui {

// True for renderer strings of software rasterisers (llvmpipe, softpipe, swrast).
bool is_software_gl_renderer(const QString& renderer);

// The GL_RENDERER string seen first in this process; empty until a context exists.
QString gl_renderer_string();
// Records the string; later calls keep the first value (one process, one display).
void remember_gl_renderer(const QString& renderer);

}  // namespace medsynth::ui

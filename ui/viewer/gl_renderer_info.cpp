#include "ui/viewer/gl_renderer_info.hpp"

#include <mutex>

namespace medsynth::ui {

namespace {
std::mutex g_mutex;
QString g_renderer;
}  // namespace

bool is_software_gl_renderer(const QString& renderer) {
  return renderer.contains(QLatin1String("llvmpipe"), Qt::CaseInsensitive) ||
         renderer.contains(QLatin1String("softpipe"), Qt::CaseInsensitive) ||
         renderer.contains(QLatin1String("swrast"), Qt::CaseInsensitive);
}

QString gl_renderer_string() {
  std::lock_guard lock(g_mutex);
  return g_renderer;
}

void remember_gl_renderer(const QString& renderer) {
  std::lock_guard lock(g_mutex);
  if (g_renderer.isEmpty()) g_renderer = renderer;
}

}  // namespace medsynth::ui

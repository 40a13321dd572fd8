#include "ui/shell/theme_controller.hpp"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

#include "app/settings/settings_store.hpp"

namespace medsynth::ui {

ThemeController::ThemeController(app::SettingsStore* settings, QObject* parent) : QObject(parent), settings_(settings) {}

QString ThemeController::to_string(Theme theme) {
  return theme == Theme::dark ? QStringLiteral("dark") : QStringLiteral("light");
}

QPalette ThemeController::palette_for(Theme theme) {
  if (theme == Theme::light) {
    // Fusion's own palette, not the platform's: the same look on every desktop.
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QPalette();
  }
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
  const QColor disabled(0x7a, 0x7e, 0x85), highlight(0x35, 0x74, 0xf0);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, QColor(0x3c, 0x3f, 0x41));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x68));
  p.setColor(QPalette::Light, QColor(0x4a, 0x4d, 0x50));
  p.setColor(QPalette::Midlight, QColor(0x3f, 0x42, 0x45));
  p.setColor(QPalette::Mid, QColor(0x33, 0x35, 0x38));
  p.setColor(QPalette::Dark, QColor(0x19, 0x1a, 0x1c));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x58, 0x9d, 0xf6));
  p.setColor(QPalette::LinkVisited, QColor(0xa3, 0x7a, 0xf0));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    p.setColor(QPalette::Disabled, role, disabled);
  }
  p.setColor(QPalette::Disabled, QPalette::Base, window);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x4a, 0x4d, 0x50));
  return p;
}

void ThemeController::apply_saved() {
  const Theme saved = settings_ && settings_->theme() == QLatin1String("dark") ? Theme::dark : Theme::light;
  apply(saved);
}

void ThemeController::set_theme(Theme theme) {
  if (settings_) settings_->set_theme(to_string(theme));
  apply(theme);
}

void ThemeController::toggle() { set_theme(theme_ == Theme::dark ? Theme::light : Theme::dark); }

void ThemeController::apply(Theme theme) {
  theme_ = theme;
  if (QApplication::style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0) {
    QApplication::setStyle(QStringLiteral("Fusion"));
  }
  QApplication::setPalette(palette_for(theme));
  emit theme_changed(theme);
}

}  // namespace medsynth::ui

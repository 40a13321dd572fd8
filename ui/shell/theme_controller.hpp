// Light/dark theme for the whole console (View ▸ Dark theme, Ctrl+T). Qt 6.4
// has no colour-scheme hint, so the theme is the Fusion style plus a palette
// we set ourselves (PLATFORM-NOTES.md). Charts follow by watching the palette.
// The choice is persisted in app::SettingsStore. Used by MainWindow and main().
#pragma once

#include <QObject>
#include <QPalette>
#include <QString>

namespace medsynth::app {
class SettingsStore;
}  // namespace medsynth::app

namespace medsynth::ui {


class ThemeController : public QObject {
  Q_OBJECT

 public:
  enum class Theme { light, dark };

  // settings may be null (no persistence, e.g. in tests).
  explicit ThemeController(app::SettingsStore* settings, QObject* parent = nullptr);

  Theme theme() const { return theme_; }
  bool is_dark() const { return theme_ == Theme::dark; }

  static QPalette palette_for(Theme theme);
  static QString to_string(Theme theme);

 public slots:
  // Applies the stored theme (call once after QApplication exists).
  void apply_saved();
  void set_theme(medsynth::ui::ThemeController::Theme theme);
  void toggle();

 signals:
  void theme_changed(medsynth::ui::ThemeController::Theme theme);

 private:
  void apply(Theme theme);

  app::SettingsStore* settings_;
  Theme theme_ = Theme::light;
};

}  // namespace medsynth::ui

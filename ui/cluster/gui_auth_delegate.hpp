// The GUI's answers to SSH questions: a dialog showing an unknown host's key
// fingerprint (trust or not), and a password-mode prompt for a key's
// passphrase. Called from launcher worker threads; the dialogs run on the
// GUI thread (blocking queued call), the worker waits for the answer.
#pragma once

#include <QObject>
#include <QPointer>
#include <QWidget>

#include "app/cluster/auth_delegate.hpp"

namespace medsynth::ui {

class GuiAuthDelegate : public QObject, public app::AuthDelegate {
  Q_OBJECT

 public:
  explicit GuiAuthDelegate(QWidget* dialog_parent);

  bool trust_unknown_host(const QString& host, const QString& key_type, const QString& fingerprint) override;
  std::optional<QString> key_passphrase(const QString& key_file) override;

 private:
  Q_INVOKABLE bool ask_trust(const QString& host, const QString& key_type, const QString& fingerprint);
  Q_INVOKABLE QString ask_passphrase(const QString& key_file, bool* ok);
  QPointer<QWidget> parent_;
};

}  // namespace medsynth::ui

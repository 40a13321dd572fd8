// GuiAuthDelegate: QMessageBox / QInputDialog on the GUI thread.
#include "ui/cluster/gui_auth_delegate.hpp"

#include <QInputDialog>
#include <QMessageBox>
#include <QThread>

namespace medsynth::ui {

GuiAuthDelegate::GuiAuthDelegate(QWidget* dialog_parent) : QObject(nullptr), parent_(dialog_parent) {}

bool GuiAuthDelegate::ask_trust(const QString& host, const QString& key_type, const QString& fingerprint) {
  QMessageBox box(QMessageBox::Warning, tr("Unknown host"),
                  tr("The authenticity of host %1 cannot be established: it is not in known_hosts.\n\n"
                     "%2 key fingerprint:\n%3\n\n"
                     "Compare it with the fingerprint the host's administrator gives you. Trust this host and add "
                     "its key to known_hosts?")
                      .arg(host, key_type, fingerprint),
                  QMessageBox::Yes | QMessageBox::No, parent_);
  box.setDefaultButton(QMessageBox::No);
  box.setTextInteractionFlags(Qt::TextSelectableByMouse);
  return box.exec() == QMessageBox::Yes;
}

QString GuiAuthDelegate::ask_passphrase(const QString& key_file, bool* ok) {
  return QInputDialog::getText(parent_, tr("Key passphrase"), tr("Passphrase for %1 (used once, never stored):").arg(key_file),
                               QLineEdit::Password, QString(), ok);
}

bool GuiAuthDelegate::trust_unknown_host(const QString& host, const QString& key_type, const QString& fingerprint) {
  bool answer = false;
  if (QThread::currentThread() == thread()) return ask_trust(host, key_type, fingerprint);
  QMetaObject::invokeMethod(this, "ask_trust", Qt::BlockingQueuedConnection, Q_RETURN_ARG(bool, answer), Q_ARG(QString, host),
                            Q_ARG(QString, key_type), Q_ARG(QString, fingerprint));
  return answer;
}

std::optional<QString> GuiAuthDelegate::key_passphrase(const QString& key_file) {
  bool ok = false;
  QString text;
  if (QThread::currentThread() == thread()) text = ask_passphrase(key_file, &ok);
  else
    QMetaObject::invokeMethod(this, "ask_passphrase", Qt::BlockingQueuedConnection, Q_RETURN_ARG(QString, text), Q_ARG(QString, key_file),
                              Q_ARG(bool*, &ok));
  if (!ok) return std::nullopt;
  return text;
}

}  // namespace medsynth::ui

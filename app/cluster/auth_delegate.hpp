// Who answers the questions of an SSH connection: "this host is not known:
// trust its key?" and "the passphrase of this key?". The GUI answers with a
// dialog (ui/cluster/gui_auth_delegate), `medsynth run` on the
// terminal (app/headless/terminal_auth_delegate.hpp), tests and scripts with
// fixed answers. Answers are used at once and never stored; a changed host key is never asked about (it
// is refused).
#pragma once

#include <QString>
#include <optional>

namespace medsynth::app {

class AuthDelegate {
 public:
  virtual ~AuthDelegate() = default;
  // host: "[127.0.0.2]:22022" as in known_hosts; fingerprint: "SHA256:...".
  // True: connect and add the key to known_hosts.
  virtual bool trust_unknown_host(const QString& host, const QString& key_type, const QString& fingerprint) = 0;
  // nullopt: no passphrase (give up on this key).
  virtual std::optional<QString> key_passphrase(const QString& key_file) = 0;
};

// Fixed answers (scripts, tests): never trusts unless told to; no passphrases.
class FixedAuthDelegate : public AuthDelegate {
 public:
  explicit FixedAuthDelegate(bool trust_new_hosts = false) : trust_(trust_new_hosts) {}
  bool trust_unknown_host(const QString&, const QString&, const QString&) override {
    ++asked_;
    return trust_;
  }
  std::optional<QString> key_passphrase(const QString&) override { return std::nullopt; }
  int asked() const { return asked_; }

 private:
  bool trust_;
  int asked_ = 0;
};

}  // namespace medsynth::app

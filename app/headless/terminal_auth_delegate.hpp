// The AuthDelegate of the headless front ends (`medsynth run`): SSH's
// questions asked on the terminal, as ssh itself asks them.
#pragma once

#include "app/cluster/auth_delegate.hpp"

namespace medsynth::app {

// Asks on the controlling terminal (/dev/tty), like ssh does; without one
// (a batch job) it refuses unknown hosts and has no passphrases. The
// passphrase is read with echo off.
class TerminalAuthDelegate : public AuthDelegate {
 public:
  explicit TerminalAuthDelegate(bool trust_new_hosts = false) : trust_(trust_new_hosts) {}
  bool trust_unknown_host(const QString& host, const QString& key_type, const QString& fingerprint) override;
  std::optional<QString> key_passphrase(const QString& key_file) override;

 private:
  bool trust_;  // --accept-new-host-keys: trust on first use without asking
};

}  // namespace medsynth::app

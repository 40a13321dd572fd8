// A connection to one host with libssh: host-key check against known_hosts
// (unknown: ask the AuthDelegate, show the SHA256 fingerprint; changed: hard
// refusal), public-key auth with a key file or ssh-agent (never a password),
// then commands on exec channels, read with timeouts. libssh older than
// 0.10.6 is refused at run time (PLATFORM-NOTES.md).
//
// Not thread-safe: one SshShell per thread (libssh sessions are not shared).
#pragma once

#include <QString>
#include <memory>

#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"
#include "app/cluster/command_shell.hpp"

namespace medsynth::app {

struct SshConnectOptions {
  QString known_hosts;       // file to check and update (required)
  int timeout_s = 10;        // connect and each blocking step
  AuthDelegate* delegate = nullptr;  // null: unknown hosts refused, no passphrases

  QStringList validate() const;
};

enum class HostKeyState { known, unknown, changed, other_type, error };

class SshShell : public CommandShell {
 public:
  ~SshShell() override;

  // Null on failure; *error says what failed, naming the host and the cause
  // ("root@127.0.0.2:22022: host key CHANGED ...", "... refused the key /k").
  static std::unique_ptr<SshShell> connect(const ClusterHost& host, const SshConnectOptions& options, QString* error,
                                           HostKeyState* key_state = nullptr);

  ShellResult run(const QString& command, const QByteArray& input = {}, int timeout_ms = 30000) override;
  QString where() const override { return endpoint_; }
  QString fingerprint() const { return fingerprint_; }
  bool is_connected() const;

  // "0.10.6" and whether it is new enough.
  static QString libssh_version();
  static bool libssh_supported();

 private:
  SshShell() = default;
  struct Session;
  std::unique_ptr<Session> session_;
  QString endpoint_;
  QString fingerprint_;
};

}  // namespace medsynth::app

// A connection to one host with libssh: the user's ssh config applied
// (aliases, HostName, Port, User, IdentityFile; ProxyJump crossed with our
// own jump sessions, ssh_config_file.hpp), host-key check against known_hosts
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
  QString known_hosts;       // file to check and update (required); jump hosts too
  QString ssh_config;        // empty: ~/.ssh/config, then /etc/ssh/ssh_config; set: only this file
  int timeout_s = 10;        // connect and each blocking step
  AuthDelegate* delegate = nullptr;  // null: unknown hosts refused, no passphrases

  QStringList validate() const;
  // A cluster's known_hosts, ssh_config and connect timeout.
  static SshConnectOptions for_cluster(const ClusterSpec& cluster, AuthDelegate* delegate = nullptr);
};

enum class HostKeyState { known, unknown, changed, other_type, error };

class SshShell : public CommandShell {
 public:
  ~SshShell() override;

  // Null on failure; *error says what failed, naming the host and the cause
  // ("root@127.0.0.2:22022: host key CHANGED ...", "... refused the key /k",
  // "gpu1 (me@10.0.0.5:22): jump host login (me@login.site:22): cannot connect ...").
  static std::unique_ptr<SshShell> connect(const ClusterHost& host, const SshConnectOptions& options, QString* error,
                                           HostKeyState* key_state = nullptr);

  ShellResult run(const QString& command, const QByteArray& input = {}, int timeout_ms = 30000) override;
  // "user@host:port", or "alias (user@host:port) via jump" when the ssh config had a say.
  QString where() const override { return endpoint_; }
  QString fingerprint() const { return fingerprint_; }
  bool is_connected() const;

  // "0.10.6" and whether it is new enough.
  static QString libssh_version();
  static bool libssh_supported();

 private:
  SshShell() = default;
  struct Session;
  struct Target;
  static std::unique_ptr<SshShell> connect_to(const Target& target, const SshConnectOptions& options, QString* error,
                                              HostKeyState* key_state, const QStringList& came_through);
  QString cross_proxy_jump(const Target& target, const SshConnectOptions& options, const QStringList& came_through,
                           const QString& host_name, unsigned int port);
  std::unique_ptr<Session> session_;
  QString endpoint_;
  QString fingerprint_;
};

}  // namespace medsynth::app

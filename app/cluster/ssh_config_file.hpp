// The user's OpenSSH client config (~/.ssh/config, or a cluster's own
// ssh_config file) as libssh 0.10 reads it, for SshShell::connect: Host and
// Match blocks, Include, HostName, Port, User, IdentityFile, ProxyCommand and
// ProxyJump. libssh does the parsing (one reader of that syntax, the one the
// connection uses); this file picks the files, turns "cannot read" into an
// error naming the file, and reads back the ProxyJump hops, which libssh 0.10
// only offers as a ProxyCommand running OpenSSH's `ssh -W` (docs/cluster.md
// says why medsynth crosses jump hosts itself instead).
//
// Called on the connecting thread; no state of its own.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

struct ssh_session_struct;  // libssh's session, kept out of this header (STYLE.md)

namespace medsynth::app {

// One ProxyJump entry, "[user@]host[:port]"; empty user / port 0: the jump
// host's own ssh config entry (else $USER, 22) decides.
struct SshJumpHop {
  QString user;
  QString host;
  int port = 0;
  QString text() const;  // as written: "user@host:port"
};

// The files read for a connection: `explicit_file` alone when set (as
// `ssh -F`), else ~/.ssh/config then /etc/ssh/ssh_config, those present.
// ~ is $HOME (libssh itself would take the passwd entry's home).
QStringList ssh_config_files(const QString& explicit_file);

// Applies those files to `session`, whose SSH_OPTIONS_HOST is the name asked
// for. Empty on success; else "ssh config FILE: what is wrong" (an explicit
// file that is missing or unreadable, a line libssh refuses).
QString apply_ssh_config(ssh_session_struct* session, const QString& explicit_file);

// libssh 0.10 stores `ProxyJump a,b` as the ProxyCommand
// "ssh [-l U] [-p P] [-J b] -W '[%h]:%p' a". Gives the hops in the order they
// are crossed (a, then b, then the target); nullopt when `command` is not of
// that form (a ProxyCommand the user wrote, which libssh runs itself).
// *error is set (and nullopt returned) when a hop is malformed.
std::optional<QList<SshJumpHop>> jump_hops_of_proxy_command(const QString& command, QString* error);

// Parses "[user@]host[:port]" / "[user@][v6]:port"; nullopt and *error when
// malformed (an empty host, a port outside 1..65535).
std::optional<SshJumpHop> parse_jump_hop(const QString& text, QString* error);

// What `address` stands for in the ssh config (its HostName; `address`
// itself when none or when the config cannot be read). No connection made.
// The other nodes are told this name, not a local alias.
QString resolve_ssh_host_name(const QString& address, const QString& explicit_file);

}  // namespace medsynth::app

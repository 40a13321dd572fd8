// SshShell: libssh session (ssh config, ProxyJump), host-key policy,
// public-key auth, exec channels.
#include "app/cluster/ssh_shell.hpp"

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "app/cluster/ssh_config_file.hpp"
#include "app/cluster/ssh_jump_tunnel.hpp"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QThread>
#include <cstring>

namespace medsynth::app {

struct SshShell::Session {
  ssh_session s = nullptr;
  std::unique_ptr<SshShell> jump;         // the host we came through (ProxyJump); null: direct
  std::unique_ptr<SshJumpTunnel> tunnel;  // jump's channel to us; s reads its socket
  ssh_callbacks_struct callbacks{};       // s keeps a pointer to it
  ~Session() {
    if (s) {
      if (ssh_is_connected(s)) ssh_disconnect(s);
      ssh_free(s);
    }
    // Then (members, in reverse order) the tunnel, whose socket s used, then the jump host.
  }
};

// A host to reach, before the ssh config has had its say.
struct SshShell::Target {
  QString address;  // a name, an IP or a Host alias
  int port = 0;     // 0: the config's Port, else 22
  QString user;     // empty: the config's User, else $USER
  QString key_file; // empty: agent, the config's IdentityFiles, ~/.ssh/id_*
  // Set for the later hops of a "ProxyJump a,b" list: cross these first,
  // whatever the config says about this host.
  std::optional<QList<SshJumpHop>> hops;
};

namespace {

QString session_error(ssh_session s) { return QString::fromUtf8(ssh_get_error(s)); }

QString expand_home(const QString& path) {
  if (path.startsWith(QStringLiteral("~/"))) return QDir::homePath() + path.mid(1);
  return path;
}

// known_hosts spells a non-22 port as "[host]:port".
QString known_hosts_name(const QString& host, int port) {
  return port == 22 ? host : QStringLiteral("[%1]:%2").arg(host).arg(port);
}

QString option_text(ssh_session s, ssh_options_e option) {
  char* value = nullptr;
  if (ssh_options_get(s, option, &value) != SSH_OK || !value) return {};
  const QString text = QString::fromUtf8(value);
  ssh_string_free_char(value);
  return text;
}

// Longer ProxyJump chains are refused (each hop is a session and a thread).
constexpr int k_max_jump_hosts = 8;

struct ServerKey {
  QString type;
  QString fingerprint;  // SHA256:...
};

ServerKey server_key(ssh_session s) {
  ServerKey k;
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(s, &key) != SSH_OK) return k;
  unsigned char* hash = nullptr;
  size_t len = 0;
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &len) == 0) {
    char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, len);
    if (text) k.fingerprint = QString::fromLatin1(text);
    ssh_string_free_char(text);
    ssh_clean_pubkey_hash(&hash);
  }
  k.type = QString::fromLatin1(ssh_key_type_to_char(ssh_key_type(key)));
  ssh_key_free(key);
  return k;
}

// Public-key auth with one key file; the passphrase (if the key has one) is
// asked of the delegate, used, and dropped.
QString auth_with_key_file(ssh_session s, const QString& key_file, AuthDelegate* delegate) {
  const QString path = expand_home(key_file);
  if (!QFileInfo::exists(path)) return QStringLiteral("key file %1 does not exist").arg(key_file);
  ssh_key key = nullptr;
  int rc = ssh_pki_import_privkey_file(path.toLocal8Bit().constData(), nullptr, nullptr, nullptr, &key);
  // An encrypted key: as ssh does, try the agent (which may hold it unlocked) before asking.
  if (rc != SSH_OK && !qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK") && ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS) return {};
  if (rc != SSH_OK && delegate) {
    if (auto passphrase = delegate->key_passphrase(key_file)) {
      QByteArray bytes = passphrase->toUtf8();
      rc = ssh_pki_import_privkey_file(path.toLocal8Bit().constData(), bytes.constData(), nullptr, nullptr, &key);
      bytes.fill('\0');
      passphrase->fill(QLatin1Char('\0'));
    }
  }
  if (rc != SSH_OK) return QStringLiteral("cannot read the private key %1 (wrong passphrase, or not a key)").arg(key_file);
  rc = ssh_userauth_publickey(s, nullptr, key);
  ssh_key_free(key);
  if (rc == SSH_AUTH_SUCCESS) return {};
  if (rc == SSH_AUTH_ERROR) return QStringLiteral("authentication error: %1").arg(session_error(s));
  return QStringLiteral("the server refused the key %1").arg(key_file);
}

// libssh asks through this for the passphrase of an IdentityFile of the
// ssh config (ssh_userauth_publickey_auto); its prompt does not name the file.
int ask_delegate_for_passphrase(const char*, char* buffer, size_t size, int, int, void* userdata) {
  auto* delegate = static_cast<AuthDelegate*>(userdata);
  std::optional<QString> answer = delegate ? delegate->key_passphrase(QStringLiteral("an IdentityFile of the ssh config")) : std::nullopt;
  if (!answer) return -1;
  QByteArray bytes = answer->toUtf8();
  answer->fill(QLatin1Char('\0'));
  const bool fits = static_cast<size_t>(bytes.size()) < size;
  if (fits) std::memcpy(buffer, bytes.constData(), static_cast<size_t>(bytes.size()) + 1);
  bytes.fill('\0');
  return fits ? 0 : -1;
}

QString auth_default(ssh_session s) {
  if (!qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK") && ssh_userauth_agent(s, nullptr) == SSH_AUTH_SUCCESS) return {};
  if (ssh_userauth_publickey_auto(s, nullptr, nullptr) == SSH_AUTH_SUCCESS) return {};
  return QStringLiteral("no key was accepted (ssh-agent, the ssh config's IdentityFile and ~/.ssh/id_*; set key_file to choose one)");
}

// Why this libssh or these options cannot connect; empty: they can.
QString setup_problem(const SshConnectOptions& options) {
  if (!SshShell::libssh_supported())
    return QStringLiteral(
               "libssh %1 is too old: medsynth needs 0.10.6 or newer (earlier versions have known "
               "authentication and known_hosts bugs)")
        .arg(SshShell::libssh_version());
  if (const QStringList problems = options.validate(); !problems.isEmpty()) return problems.join(QStringLiteral("; "));
  return {};
}

// The cluster file's port and user (0, empty: the config's), then $USER.
void set_port_and_user(ssh_session s, int port, const QString& user) {
  if (port > 0) ssh_options_set(s, SSH_OPTIONS_PORT, &port);
  if (!user.isEmpty()) ssh_options_set(s, SSH_OPTIONS_USER, user.toUtf8().constData());
  if (option_text(s, SSH_OPTIONS_USER).isEmpty()) {
    const QByteArray env_user = qgetenv("USER");
    // Null: libssh's own default, the passwd entry's name.
    ssh_options_set(s, SSH_OPTIONS_USER, env_user.isEmpty() ? nullptr : env_user.constData());
  }
}

void set_timeout_and_known_hosts(ssh_session s, int timeout_s, const QByteArray& known) {
  const long timeout = timeout_s;
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
  ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, known.constData());
  ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, known.constData());
}

// The server's key against known_hosts (an unknown one: the delegate decides,
// and a trusted one is added to it). Empty: go on; else why not.
QString check_host_key(ssh_session s, const ServerKey& key, const QString& name, const QByteArray& known,
                       const SshConnectOptions& options, HostKeyState* key_state) {
  switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK:
      if (key_state) *key_state = HostKeyState::known;
      break;
    case SSH_KNOWN_HOSTS_CHANGED:
      if (key_state) *key_state = HostKeyState::changed;
      return QStringLiteral(
                 "the host key of %1 has CHANGED (now %2 %3). Someone may be intercepting the "
                 "connection, or the host was reinstalled; refusing to connect. If the change is "
                 "expected, remove its line from %4.")
          .arg(name, key.type, key.fingerprint, options.known_hosts);
    case SSH_KNOWN_HOSTS_OTHER:
      if (key_state) *key_state = HostKeyState::other_type;
      return QStringLiteral("%1 offered a %2 key (%3) but %4 holds a key of another type for it; refusing to connect")
          .arg(name, key.type, key.fingerprint, options.known_hosts);
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND: {
      if (key_state) *key_state = HostKeyState::unknown;
      if (!options.delegate || !options.delegate->trust_unknown_host(name, key.type, key.fingerprint))
        return QStringLiteral("unknown host key %1 %2 (not in %3); not trusted")
            .arg(key.type, key.fingerprint, options.known_hosts);
      QDir().mkpath(QFileInfo(QString::fromLocal8Bit(known)).absolutePath());
      if (ssh_session_update_known_hosts(s) != SSH_OK)
        return QStringLiteral("cannot add the host key to %1: %2").arg(options.known_hosts, session_error(s));
      break;
    }
    case SSH_KNOWN_HOSTS_ERROR:
      return QStringLiteral("cannot check the host key against %1: %2").arg(options.known_hosts, session_error(s));
  }
  return {};
}

// With a delegate, libssh asks it for an IdentityFile's passphrase; cb lives
// as long as the session.
void route_passphrase_prompts(ssh_session s, ssh_callbacks_struct* cb, AuthDelegate* delegate) {
  if (!delegate) return;
  cb->userdata = delegate;
  cb->auth_function = ask_delegate_for_passphrase;
  ssh_callbacks_init(cb);
  ssh_set_callbacks(s, cb);
}

// Some servers want "none" first (it also lists the methods); never a password.
// Empty: authenticated; else why not.
QString authenticate(ssh_session s, const QString& key_file, AuthDelegate* delegate) {
  if (ssh_userauth_none(s, nullptr) == SSH_AUTH_SUCCESS) return {};
  return key_file.isEmpty() ? auth_default(s) : auth_with_key_file(s, key_file, delegate);
}

}  // namespace

QStringList SshConnectOptions::validate() const {
  QStringList e;
  if (known_hosts.isEmpty()) e << QStringLiteral("known_hosts: missing");
  if (timeout_s < 1) e << QStringLiteral("timeout_s: must be >= 1 (got %1)").arg(timeout_s);
  return e;
}

SshConnectOptions SshConnectOptions::for_cluster(const ClusterSpec& cluster, AuthDelegate* delegate) {
  SshConnectOptions o;
  o.known_hosts = cluster.known_hosts_path();
  o.ssh_config = cluster.ssh_config_path();
  o.timeout_s = cluster.connect_timeout_s;
  o.delegate = delegate;
  return o;
}

SshShell::~SshShell() = default;

QString SshShell::libssh_version() { return QString::fromLatin1(ssh_version(0)).section(QLatin1Char('/'), 0, 0); }

bool SshShell::libssh_supported() { return ssh_version(SSH_VERSION_INT(0, 10, 6)) != nullptr; }

bool SshShell::is_connected() const { return session_ && session_->s && ssh_is_connected(session_->s); }

std::unique_ptr<SshShell> SshShell::connect(const ClusterHost& host, const SshConnectOptions& options, QString* error, HostKeyState* key_state) {
  Target target;
  target.address = host.address;
  target.port = host.port;
  target.user = host.user;
  target.key_file = host.key_file;
  return connect_to(target, options, error, key_state, {});
}

std::unique_ptr<SshShell> SshShell::connect_to(const Target& target, const SshConnectOptions& options, QString* error,
                                                HostKeyState* key_state, const QStringList& came_through) {
  std::unique_ptr<SshShell> shell(new SshShell);
  shell->endpoint_ = target.address;
  auto fail = [&](const QString& why) {
    if (error) *error = shell->endpoint_ + QStringLiteral(": ") + why;
    return nullptr;
  };
  if (key_state) *key_state = HostKeyState::error;
  if (const QString problem = setup_problem(options); !problem.isEmpty()) return fail(problem);

  shell->session_ = std::make_unique<Session>();
  ssh_session s = shell->session_->s = ssh_new();
  if (!s) return fail(QStringLiteral("out of memory"));
  // The ssh config is read here, once, from the files we choose (libssh
  // would read ~/.ssh/config of the passwd entry at connect time).
  const bool no = false;
  ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
  ssh_options_set(s, SSH_OPTIONS_HOST, target.address.toUtf8().constData());
  if (const QString problem = apply_ssh_config(s, options.ssh_config); !problem.isEmpty()) return fail(problem);

  // What the cluster file says wins over the config; then the config; then
  // the defaults. The cluster's known_hosts always decides.
  set_port_and_user(s, target.port, target.user);
  const QByteArray known = expand_home(options.known_hosts).toLocal8Bit();
  set_timeout_and_known_hosts(s, options.timeout_s, known);

  const QString host_name = option_text(s, SSH_OPTIONS_HOST);
  unsigned int port = 22;
  ssh_options_get_port(s, &port);
  const QString user_at = QStringLiteral("%1@%2:%3").arg(option_text(s, SSH_OPTIONS_USER), host_name).arg(port);
  shell->endpoint_ = host_name == target.address ? user_at : QStringLiteral("%1 (%2)").arg(target.address, user_at);

  if (const QString problem = shell->cross_proxy_jump(target, options, came_through, host_name, port);
      !problem.isEmpty())
    return fail(problem);
  if (ssh_connect(s) != SSH_OK) return fail(QStringLiteral("cannot connect: %1").arg(session_error(s)));

  const ServerKey key = server_key(s);
  shell->fingerprint_ = key.fingerprint;
  const QString name = known_hosts_name(host_name, static_cast<int>(port));
  if (const QString problem = check_host_key(s, key, name, known, options, key_state); !problem.isEmpty())
    return fail(problem);

  route_passphrase_prompts(s, &shell->session_->callbacks, options.delegate);
  if (const QString problem = authenticate(s, target.key_file, options.delegate); !problem.isEmpty())
    return fail(QStringLiteral("authentication failed: ") + problem);
  if (key_state && *key_state == HostKeyState::unknown) *key_state = HostKeyState::known;
  return shell;
}

// ProxyJump: reach the last hop (through the earlier ones), then a tunnel
// from it to this host, which this session then speaks over. Empty: crossed
// (or no jump host); else why not.
QString SshShell::cross_proxy_jump(const Target& target, const SshConnectOptions& options,
                                   const QStringList& came_through, const QString& host_name, unsigned int port) {
  ssh_session s = session_->s;
  std::optional<QList<SshJumpHop>> hops = target.hops;
  if (!hops) {
    QString problem;
    hops = jump_hops_of_proxy_command(option_text(s, SSH_OPTIONS_PROXYCOMMAND), &problem);
    if (!problem.isEmpty()) return QStringLiteral("ssh config: ") + problem;
  }
  if (!hops || hops->isEmpty()) return {};
  const QStringList path = QStringList(came_through) << target.address;
  if (path.contains(hops->last().host))
    return QStringLiteral("ProxyJump loops back to %1 (%2 -> %1); check the ssh config")
        .arg(hops->last().host, QStringList(path).join(QStringLiteral(" -> ")));
  if (path.size() > k_max_jump_hosts)
    return QStringLiteral("ProxyJump goes through more than %1 hosts").arg(k_max_jump_hosts);
  ssh_options_set(s, SSH_OPTIONS_PROXYCOMMAND, "none");  // not OpenSSH's `ssh -W`: we cross it ourselves
  Target next;
  next.address = hops->last().host;
  next.port = hops->last().port;
  next.user = hops->last().user;
  if (hops->size() > 1) next.hops = hops->mid(0, hops->size() - 1);
  QString problem;
  auto jump = connect_to(next, options, &problem, nullptr, path);
  if (!jump) return QStringLiteral("jump host ") + problem;
  auto tunnel = SshJumpTunnel::open(jump->session_->s, host_name, static_cast<int>(port), &problem);
  if (!tunnel) return QStringLiteral("jump host %1: %2").arg(jump->where(), problem);
  const int fd = tunnel->socket();
  ssh_options_set(s, SSH_OPTIONS_FD, &fd);
  endpoint_ += QStringLiteral(" via ") + hops->last().text();
  session_->jump = std::move(jump);
  session_->tunnel = std::move(tunnel);
  return {};
}

ShellResult SshShell::run(const QString& command, const QByteArray& input, int timeout_ms) {
  ShellResult r;
  if (!is_connected()) {
    r.error = endpoint_ + QStringLiteral(": not connected");
    r.connection_lost = true;
    return r;
  }
  ssh_session s = session_->s;
  ssh_channel ch = ssh_channel_new(s);
  auto lost = [&](const QString& what) {
    r.error = QStringLiteral("%1: %2: %3").arg(endpoint_, what, session_error(s));
    r.connection_lost = true;
    if (ch) ssh_channel_free(ch);
    return r;
  };
  if (!ch) return lost(QStringLiteral("cannot open a channel"));
  if (ssh_channel_open_session(ch) != SSH_OK) return lost(QStringLiteral("cannot open a session channel"));
  if (ssh_channel_request_exec(ch, command.toUtf8().constData()) != SSH_OK) return lost(QStringLiteral("exec refused"));
  for (qsizetype done = 0; done < input.size();) {
    const int n = ssh_channel_write(ch, input.constData() + done, static_cast<uint32_t>(std::min<qsizetype>(input.size() - done, 32768)));
    if (n == SSH_ERROR) return lost(QStringLiteral("writing stdin"));
    done += n;
  }
  ssh_channel_send_eof(ch);

  const QDeadlineTimer deadline(timeout_ms);
  char buffer[32768];
  while (true) {
    const int n_out = ssh_channel_read_nonblocking(ch, buffer, sizeof buffer, 0);
    if (n_out == SSH_ERROR) return lost(QStringLiteral("reading"));
    if (n_out > 0) append_capped(r.out, buffer, n_out, k_max_shell_stdout_bytes, &r.discarded_bytes);
    const int n_err = ssh_channel_read_nonblocking(ch, buffer, sizeof buffer, 1);
    if (n_err == SSH_ERROR) return lost(QStringLiteral("reading"));
    if (n_err > 0) append_capped(r.err, buffer, n_err, k_max_shell_stderr_bytes, &r.discarded_bytes);
    if (n_out > 0 || n_err > 0) continue;
    if (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch)) break;
    if (deadline.hasExpired()) {
      // A link that stopped answering looks like this too: reconnect next time.
      r.error = QStringLiteral("%1: '%2' did not finish within %3 s").arg(endpoint_, command.left(60)).arg(timeout_ms / 1000.0);
      r.connection_lost = true;
      ssh_channel_close(ch);
      ssh_channel_free(ch);
      return r;
    }
    const int polled = ssh_channel_poll_timeout(ch, 50, 0);
    if (polled == SSH_ERROR) return lost(QStringLiteral("polling"));
    if (!ssh_is_connected(s)) return lost(QStringLiteral("connection closed"));
  }
  r.exit_code = ssh_channel_get_exit_status(ch);
  ssh_channel_close(ch);
  ssh_channel_free(ch);
  if (!ssh_is_connected(s)) r.connection_lost = true;
  return r;
}

}  // namespace medsynth::app

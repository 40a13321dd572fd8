// SshJumpTunnel: direct-tcpip channel <-> socketpair, copied by one thread.
#include "app/cluster/ssh_jump_tunnel.hpp"

#include <libssh/libssh.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace medsynth::app {
namespace {

bool write_all(int fd, const char* data, int size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, static_cast<size_t>(size));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<int>(n);
  }
  return true;
}

}  // namespace

std::unique_ptr<SshJumpTunnel> SshJumpTunnel::open(ssh_session jump, const QString& host, int port, QString* error) {
  std::unique_ptr<SshJumpTunnel> t(new SshJumpTunnel);
  t->jump_ = jump;
  t->channel_ = ssh_channel_new(jump);
  if (!t->channel_) {
    if (error) *error = QStringLiteral("cannot make a channel: %1").arg(QString::fromUtf8(ssh_get_error(jump)));
    return nullptr;
  }
  // The originator address is informational (sshd logs it); ours is not known here.
  if (ssh_channel_open_forward(t->channel_, host.toUtf8().constData(), port, "127.0.0.1", 0) != SSH_OK) {
    if (error)
      *error = QStringLiteral("the jump host would not forward to %1:%2: %3").arg(host).arg(port).arg(QString::fromUtf8(ssh_get_error(jump)));
    return nullptr;
  }
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t->fds_) != 0) {
    if (error) *error = QStringLiteral("cannot make a socket pair: %1").arg(QString::fromLocal8Bit(strerror(errno)));
    return nullptr;
  }
  t->thread_ = std::thread([raw = t.get()] { raw->copy_until_closed(); });
  return t;
}

SshJumpTunnel::~SshJumpTunnel() {
  stop_ = true;
  // The next session is gone: shutting our end down wakes the copy thread.
  if (fds_[0] >= 0) ::shutdown(fds_[0], SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  if (channel_) {
    if (ssh_channel_is_open(channel_) && ssh_is_connected(jump_)) ssh_channel_close(channel_);
    ssh_channel_free(channel_);
  }
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

void SshJumpTunnel::copy_until_closed() {
  const int mine = fds_[1];
  char buffer[32768];
  bool open = true;
  while (open && !stop_) {
    // Drain what libssh holds for the channel first: it may have read it
    // while writing, when the jump's socket no longer shows it as readable.
    int n;
    while (open && (n = ssh_channel_read_nonblocking(channel_, buffer, sizeof buffer, 0)) > 0) open = write_all(mine, buffer, n);
    // n < 0: SSH_ERROR, or SSH_EOF when the far end closed.
    if (!open || n < 0 || ssh_channel_is_eof(channel_) || ssh_channel_is_closed(channel_) || !ssh_is_connected(jump_)) break;
    pollfd watch[2] = {{mine, POLLIN, 0}, {ssh_get_fd(jump_), POLLIN, 0}};
    // The timeout only bounds how long a stop request waits.
    if (::poll(watch, 2, 200) < 0 && errno != EINTR) break;
    if (watch[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(mine, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      // got == 0: the next session closed its end.
      open = got > 0 && ssh_channel_write(channel_, buffer, static_cast<uint32_t>(got)) == got;
    }
  }
  // Either side gone: the next session sees its socket close (a lost link),
  // the jump host sees the channel end.
  ::shutdown(mine, SHUT_RDWR);
  if (ssh_channel_is_open(channel_) && ssh_is_connected(jump_)) ssh_channel_send_eof(channel_);
}

}  // namespace medsynth::app

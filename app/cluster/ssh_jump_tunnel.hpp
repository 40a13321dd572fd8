// A byte stream from a jump host on to the next host, for SshShell::connect's
// ProxyJump: a direct-tcpip channel of the (connected, authenticated) jump
// session, handed to the next libssh session as a socket (SSH_OPTIONS_FD).
// libssh 0.10 cannot run a session over a channel, so a thread copies bytes
// between the channel and one end of a socketpair; the next session is given
// the other end. The jump session's host key and authentication went through
// SshShell like any host's: same known_hosts, same AuthDelegate.
//
// Threads: open() runs on the connecting thread; from then on the jump
// session is the copy thread's alone until the destructor has joined it.
// Free the session that uses socket() first, then the tunnel, then the jump
// session.
#pragma once

#include <QString>
#include <atomic>
#include <memory>
#include <thread>

struct ssh_session_struct;
struct ssh_channel_struct;

namespace medsynth::app {

class SshJumpTunnel {
 public:
  // Null on failure; *error says why ("the jump host would not forward to
  // 10.0.0.5:22: ...").
  static std::unique_ptr<SshJumpTunnel> open(ssh_session_struct* jump, const QString& host, int port, QString* error);
  ~SshJumpTunnel();
  SshJumpTunnel(const SshJumpTunnel&) = delete;
  SshJumpTunnel& operator=(const SshJumpTunnel&) = delete;

  int socket() const { return fds_[0]; }  // for SSH_OPTIONS_FD; stays ours (libssh does not close it)

 private:
  SshJumpTunnel() = default;
  void copy_until_closed();

  ssh_session_struct* jump_ = nullptr;
  ssh_channel_struct* channel_ = nullptr;
  int fds_[2] = {-1, -1};  // [0]: the next session's; [1]: the copy thread's
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace medsynth::app

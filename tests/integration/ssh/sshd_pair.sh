#!/usr/bin/env bash
# Two private sshd "nodes" on 127.0.0.2 and 127.0.0.3 (same port, own host
# keys) for the ssh tests: `sshd_pair.sh start DIR ENGINE` writes into DIR
#   id_ed25519        the client key both servers accept
#   wrong_ed25519     a key neither accepts
#   secret_ed25519    a key both accept, protected by the passphrase in
#                     secret.passphrase (tests grep for it where it must not be)
#   known_hosts       both hosts' keys, "[127.0.0.x]:PORT" lines
#   node-a.fp, node-b.fp   their SHA256 fingerprints (ssh-keygen -l)
#   node-b.pub        node-b's public host key (to fake a changed key)
#   cluster.yaml      an ssh cluster of both, work_dir DIR/work (shared)
#   env               PORT=..., for scripts
# and a third sshd, "jump" on 127.0.0.4 (same port and client keys; its own
# host key, jump.fp and a known_hosts line like the nodes) for the ProxyJump
# tests. It logs at DEBUG1 to DIR/jump/sshd.log, where each forward it opens
# reads "server_request_direct_tcpip: originator ..., target ADDR port PORT".
# `sshd_pair.sh stop DIR` stops all three. Nothing outside DIR is touched except
# /run/sshd (sshd's privilege-separation directory), created if missing.
# Settings from PLATFORM-NOTES.md. Exit 77 (skip) when sshd cannot run here.
set -euo pipefail
cmd="$1"; dir="$(realpath -m "$2")"

stop() {
  for n in node-a node-b jump; do
    [ -f "$dir/$n/sshd.pid" ] && kill "$(cat "$dir/$n/sshd.pid")" 2>/dev/null || true
  done
  return 0
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start DIR ENGINE | stop DIR" >&2; exit 2; }
engine="$(realpath "$3")"
sshd=/usr/sbin/sshd
[ -x "$sshd" ] || { echo "SKIP: no $sshd" >&2; exit 77; }
if [ ! -d /run/sshd ]; then
  mkdir -p /run/sshd 2>/dev/null || { echo "SKIP: /run/sshd missing and not creatable (needs root)" >&2; exit 77; }
  chmod 755 /run/sshd
fi
user="$(id -un)"
mkdir -p "$dir/work"
ssh-keygen -q -t ed25519 -N '' -C medsynth-test -f "$dir/id_ed25519"
ssh-keygen -q -t ed25519 -N '' -C medsynth-wrong -f "$dir/wrong_ed25519"
passphrase="medsynth-passphrase-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s' "$passphrase" > "$dir/secret.passphrase"
ssh-keygen -q -t ed25519 -N "$passphrase" -C medsynth-secret -f "$dir/secret_ed25519"
cat "$dir/id_ed25519.pub" "$dir/secret_ed25519.pub" > "$dir/authorized_keys"
chmod 600 "$dir/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])')
: > "$dir/known_hosts"
for n in node-a node-b jump; do
  case $n in node-a) addr=127.0.0.2;; node-b) addr=127.0.0.3;; jump) addr=127.0.0.4;; esac
  level=ERROR; [ $n = jump ] && level=DEBUG1
  mkdir -p "$dir/$n"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/$n/host_key"
  cp "$dir/$n/host_key.pub" "$dir/$n.pub"
  ssh-keygen -l -E sha256 -f "$dir/$n/host_key.pub" | awk '{print $2}' > "$dir/$n.fp"
  echo "[$addr]:$port $(cut -d' ' -f1,2 "$dir/$n/host_key.pub")" >> "$dir/known_hosts"
  cat > "$dir/$n/sshd_config" <<CONF
Port $port
ListenAddress $addr
HostKey $dir/$n/host_key
PidFile $dir/$n/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 100
MaxSessions 100
LogLevel $level
CONF
  "$sshd" -f "$dir/$n/sshd_config" -D -e 2>> "$dir/$n/sshd.log" &
done
cat > "$dir/cluster.yaml" <<YAML
name: loopback-pair
kind: ssh
known_hosts: $dir/known_hosts
master_port: $(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])')
connect_timeout_s: 5
hosts:
  - {name: node-a, address: 127.0.0.2, port: $port, user: $user, key_file: $dir/id_ed25519, work_dir: $dir/work, engine: $engine}
  - {name: node-b, address: 127.0.0.3, port: $port, user: $user, key_file: $dir/id_ed25519, work_dir: $dir/work, engine: $engine}
YAML
echo "PORT=$port" > "$dir/env"
# Up when both accept a connection (a few ms each).
for _ in $(seq 100); do
  if [ -s "$dir/node-a/sshd.pid" ] && [ -s "$dir/node-b/sshd.pid" ] && [ -s "$dir/jump/sshd.pid" ] && \
     python3 -c "import socket,sys; [socket.create_connection((a,$port),0.2).close() for a in ('127.0.0.2','127.0.0.3','127.0.0.4')]" 2>/dev/null; then
    exit 0
  fi
  sleep 0.05
done
echo "sshd did not come up:" >&2; cat "$dir"/node-*/sshd.log "$dir"/jump/sshd.log >&2; stop; exit 1

#!/usr/bin/env bash
# The installer's package step on a machine where `ssh` is enabled and running
# (a workstation reached over SSH, a cluster node): after it has installed a
# missing package, ssh is still enabled and its sshd still runs, and no
# policy-rc.d of the installer's is left behind. (The installer once ran
# `systemctl disable --now munge slurmctld slurmd ssh` after any install.)
# Real parts: apt installs a real package (Debian's `hello`, no daemon, purged
# afterwards), a real sshd runs on a private loopback port, and ssh's
# enablement is systemd's own (systemctl works on the unit links offline too).
# Needs root and Debian's package archive: skips (exit 77) with the reason.
# Usage: package_step_keeps_services_test.sh REPO
set -uo pipefail
repo="${1:?usage: $0 REPO}"
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root: it installs a package and enables ssh"
command -v apt-get >/dev/null && command -v systemctl >/dev/null || skip "needs apt-get and systemctl (Debian)"
[ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (installer/packages/test.txt)"
probe=hello
if dpkg-query -W -f='${Status}' "$probe" 2>/dev/null | grep -q 'install ok installed'; then
  skip "the probe package '$probe' is already installed: the package step would have nothing to install"
fi
apt-cache show "$probe" >/dev/null 2>&1 || apt-get update -qq >/dev/null 2>&1
apt-cache show "$probe" >/dev/null 2>&1 || skip "Debian's package archive is not reachable (no '$probe' package)"

tmp="$(mktemp -d)"
was_enabled="$(systemctl is-enabled ssh 2>/dev/null || true)"
policy_rc_before="$( [ -e /usr/sbin/policy-rc.d ] && sha256sum < /usr/sbin/policy-rc.d || echo absent)"
sshd_pid=""
cleanup() {
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
  [ "$was_enabled" = enabled ] || systemctl disable ssh >/dev/null 2>&1
  dpkg-query -W -f='${Status}' "$probe" 2>/dev/null | grep -q 'install ok installed' &&
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$probe" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

# The machine's state: ssh enabled, and an sshd serving (on a private port, so
# the test never depends on port 22; under systemd the unit itself is started).
systemctl enable ssh >/dev/null 2>&1 || { echo "FAIL: could not enable ssh to set up the test"; exit 1; }
systemd_runs=0
[ -d /run/systemd/system ] && systemd_runs=1
if [ $systemd_runs = 1 ]; then
  systemctl start ssh || { echo "FAIL: could not start ssh to set up the test"; exit 1; }
else
  mkdir -p /run/sshd && chmod 755 /run/sshd  # sshd's privilege-separation directory
  ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
  port=$((20000 + RANDOM % 20000))
  /usr/sbin/sshd -D -p "$port" -o ListenAddress=127.0.0.1 -h "$tmp/host_key" -o PidFile="$tmp/sshd.pid" &
  sshd_pid=$!
  for _ in $(seq 50); do [ -s "$tmp/sshd.pid" ] && break; kill -0 "$sshd_pid" 2>/dev/null || break; sleep 0.1; done
  [ -s "$tmp/sshd.pid" ] || { echo "FAIL: the test's sshd did not start"; exit 1; }
fi

echo "$probe" > "$tmp/list.txt"
if ! "$repo/installer/install.sh" --packages-only --package-list "$tmp/list.txt"; then
  echo "FAIL: the installer's package step failed"; exit 1
fi
dpkg-query -W -f='${Status}' "$probe" 2>/dev/null | grep -q 'install ok installed' ||
  { echo "FAIL: the package step did not install '$probe': the test proved nothing"; exit 1; }

failures=0
enabled="$(systemctl is-enabled ssh 2>/dev/null || true)"
if [ "$enabled" != enabled ]; then echo "FAIL: ssh was enabled before the installer ran and is '$enabled' after"; failures=1; fi
if [ $systemd_runs = 1 ]; then
  systemctl is-active --quiet ssh || { echo "FAIL: ssh was running before the installer ran and is not after"; failures=1; }
else
  kill -0 "$sshd_pid" 2>/dev/null || { echo "FAIL: the running sshd was stopped by the installer"; failures=1; }
fi
policy_rc_after="$( [ -e /usr/sbin/policy-rc.d ] && sha256sum < /usr/sbin/policy-rc.d || echo absent)"
if [ "$policy_rc_after" != "$policy_rc_before" ]; then echo "FAIL: /usr/sbin/policy-rc.d changed (before: $policy_rc_before, after: $policy_rc_after)"; failures=1; fi
[ $failures = 0 ] && echo "ok: ssh enabled and running before and after the package step, policy-rc.d as it was"
exit $failures

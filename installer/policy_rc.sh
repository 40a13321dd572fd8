# The installer's /usr/sbin/policy-rc.d (sourced by install.sh): a policy
# that refuses service starts only while the installer that wrote it runs.
# Why: a plain "exit 101" file left behind by an installer killed mid-way
# (SIGKILL runs no trap) stops every service on the machine from starting at
# its next package install or boot-time invoke-rc.d, forever.

# The policy text for installer process $1: exit 101 (no starts) while it
# lives, 0 (Debian's default: allowed) once it is gone.
policy_rc_text() {
  printf '#!/bin/sh\n# medsynth installer (process %s): no service starts during its package install.\n' "$1"
  printf '# Removed when it ends; if it was killed, this file allows everything and its next run removes it.\n'
  printf 'kill -0 %s 2>/dev/null && exit 101\nexit 0\n' "$1"
}

# Removes a policy file at $1 that one of our installers wrote and whose
# process is gone; anyone else's file is left as it is.
remove_stale_policy_rc() {
  local file="$1" pid
  [ -f "$file" ] || return 0
  pid="$(sed -n 's/^# medsynth installer (process \([0-9]*\)).*/\1/p' "$file" | head -1)"
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null && return 0
  if [ "$(id -u)" = 0 ]; then rm -f "$file"; else sudo rm -f "$file"; fi
}

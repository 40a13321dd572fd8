#!/usr/bin/env bash
# The generated bash completion (`medsynth-engine completion bash`, installed by
# the packages) completes what the engine really accepts: every verb its
# --help lists, a verb's options, launch's own verbs, and job-field overrides
# after the job file, and nothing for a verb that takes no overrides.
# Usage: bash_completion_test.sh MEDSYNTH_ENGINE
set -uo pipefail
engine="${1:?usage: $0 MEDSYNTH_ENGINE}"
script="$(mktemp)"
trap 'rm -f "$script"' EXIT
"$engine" completion bash >"$script" || { echo "FAIL: completion bash exited $?"; exit 1; }
if "$engine" completion zsh >/dev/null 2>&1; then echo "FAIL: completion zsh should be refused"; exit 1; fi
# shellcheck source=/dev/null
source "$script"

failures=0
complete_words() {  # complete_words WORD... : completes the last word, prints COMPREPLY one per line
  COMP_WORDS=(medsynth-engine "$@")
  COMP_CWORD=$#
  COMP_LINE="${COMP_WORDS[*]}"
  COMPREPLY=()
  _medsynth_engine
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # expect "what" "needle" "words..." : needle must be among the completions
  local what="$1" needle="$2"; shift 2
  # Not grep -q: it exits at the first match, and under pipefail the printf
  # still writing the other candidates then dies of SIGPIPE, failing the
  # pipeline (a race: "train", the first candidate, failed that way under load).
  if complete_words "$@" | grep -xF -- "$needle" >/dev/null; then echo "ok   $what"; else
    echo "FAIL $what: '$needle' not offered for: $*"; complete_words "$@" | head -5; failures=$((failures + 1)); fi
}
expect_none() {
  local what="$1"; shift
  local got; got="$(complete_words "$@")"
  if [ -z "$got" ]; then echo "ok   $what"; else echo "FAIL $what: offered $(head -3 <<<"$got" | tr '\n' ' ')"; failures=$((failures + 1)); fi
}

# Every verb the engine's --help lists (so a new verb cannot be forgotten).
verbs="$("$engine" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')"
[ -n "$verbs" ] || { echo "FAIL: no verbs parsed from --help"; exit 1; }
for verb in $verbs; do expect "verb $verb" "$verb" ""; done
expect "verb prefix" train "tr"
expect "option of train" --resume train --re
expect "option of launch" --nproc-per-node launch --nproc
expect "launch's own verb" generate launch --nproc-per-node 2 gen
expect "override after the job file" training.lr= train job.yaml training.l
expect "override after another override" data.patch_size= train job.yaml training.lr = 3e-4 data.patch_s
expect "override of validate" model.autoencoder.num_channels= validate job.yaml model.autoencoder.num_ch
expect "override after an option's value" data.modality= train --data /tmp/x job.yaml data.mod
expect_none "no override for the job file itself" train training.l
expect_none "no override for info" info training.l
expect_none "a value after '='" train job.yaml training.lr = ""
expect_none "hidden test hooks stay hidden" train --test-kill
# Every field the schema has is offered: the validated resolved job names them.
fields="$(complete_words train job.yaml "" | wc -l)"
[ "$fields" -gt 100 ] && echo "ok   $fields job fields offered" || { echo "FAIL: only $fields job fields offered"; failures=$((failures + 1)); }

if [ $failures -ne 0 ]; then echo "$failures failures"; exit 1; fi
echo "bash completion: all checks passed"

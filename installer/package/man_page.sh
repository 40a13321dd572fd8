#!/usr/bin/env bash
# Writes PROGRAM's man page with help2man from its --help and --version, and,
# for a program with verbs (medsynth-engine), one section per verb from
# `PROGRAM VERB --help`, so the page is generated like the rest and never kept
# by hand. Called by cmake/MedsynthInstall.cmake at build time.
# Usage: man_page.sh HELP2MAN PROGRAM SUMMARY OUT.1.gz
set -euo pipefail
help2man="$1" program="$2" summary="$3" out="$4"
name="$(basename "$program")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset DISPLAY WAYLAND_DISPLAY
verbs="$("$program" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')"
{
  echo "[SEE ALSO]"
  echo "The documentation in /usr/share/doc/medsynth-engine/docs (install.md, job-file.md, cluster.md)."
  if [ -n "$verbs" ]; then
    echo "[VERBS]"
    for verb in $verbs; do
      echo ".SS $verb"
      echo ".nf"
      "$program" "$verb" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s|Usage: [^ ]*$name|Usage: $name|"
      echo ".fi"
    done
  fi
} > "$work/include"
mkdir -p "$(dirname "$out")"
"$help2man" --no-info --no-discard-stderr --section 1 --name "$summary" --include "$work/include" \
  --output "$work/$name.1" "$program"
# The build folder's path must not reach the page.
sed -i "s|$(dirname "$program")/||g" "$work/$name.1"
gzip -9n < "$work/$name.1" > "$out.tmp"
mv "$out.tmp" "$out"

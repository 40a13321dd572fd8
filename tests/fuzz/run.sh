#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (AddressSanitizer +
# UndefinedBehaviorSanitizer) with clang++, compiling the engine sources they
# need directly (no CMake), then runs each for SECONDS on a copy of its seed
# corpus and prints the executions. Exit status: 0 when every fuzzer ran its
# time without a finding; 1 on a finding (crash, leak, sanitizer report,
# escaped exception, timeout, out of memory) or a build failure; 77 (skipped,
# with the reason printed) when clang++ or libFuzzer is missing.
#
# Usage: tests/fuzz/run.sh [OUT_DIR] [SECONDS]
#   OUT_DIR  objects, binaries, corpus copies, logs, crash artifacts
#            (default $MEDSYNTH_FUZZ_DIR, else build/fuzz in the checkout)
#   SECONDS  per fuzzer (default 20; 0 builds only)
# Environment:
#   MEDSYNTH_FUZZ_CXX         the compiler (default clang++)
#   MEDSYNTH_FUZZ_ONLY        names of the fuzzers to build and run (default all six)
#   MEDSYNTH_FUZZ_TORCH       site-packages/torch to build pickle_fuzzer against
#                             (default .deps/venv/lib/python3*/site-packages/torch);
#                             without one pickle_fuzzer is skipped, with a message
#   MEDSYNTH_FUZZ_KEEP_CORPUS 1: keep OUT_DIR/corpus/<fuzzer> between runs (the
#                             long run grows it); default: a fresh copy of the seeds
#   MEDSYNTH_FUZZ_TIMEOUT     seconds one input may take before it is a finding (default 30)
#   MEDSYNTH_FUZZ_NICE        niceness of compiles and runs (default 10)
#   MEDSYNTH_FUZZ_ARGS        more libFuzzer flags for every fuzzer
#   MEDSYNTH_FUZZ_CXXFLAGS    more compile flags, e.g. -fno-sanitize=float-cast-overflow
#                             to fuzz past a known, not yet fixed finding (use
#                             another OUT_DIR: changed flags rebuild every object)
# Objects are rebuilt only when their source, a header they include or the
# flags changed; binaries are relinked only when an object is newer.
# tests/fuzz/README.md has the harnesses, the long run and the results.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-${MEDSYNTH_FUZZ_DIR:-$root/build/fuzz}}"
seconds="${2:-20}"
cxx="${MEDSYNTH_FUZZ_CXX:-clang++}"
nice_level="${MEDSYNTH_FUZZ_NICE:-10}"
timeout_s="${MEDSYNTH_FUZZ_TIMEOUT:-30}"
only="${MEDSYNTH_FUZZ_ONLY:-config_json_fuzzer nifti_extension_fuzzer dicom_walker_fuzzer datalist_fuzzer json_documents_fuzzer pickle_fuzzer}"

case "$seconds" in '' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number (got '$seconds')" >&2; exit 2 ;; esac

# --- can we build at all?
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIP: $cxx not found (install clang-14 and libclang-rt-14-dev, installer/packages/test.txt)"
  exit 77
fi
mkdir -p "$out/obj" "$out/bin" "$out/logs" || exit 1
out="$(cd "$out" && pwd)"
probe="$out/obj/libfuzzer_probe"
if [ ! -x "$probe" ] || [ "$(command -v "$cxx")" -nt "$probe" ]; then
  printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n' \
    >"$probe.cpp"
  if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe.cpp" -o "$probe" >"$probe.log" 2>&1; then
    echo "SKIP: $cxx cannot link -fsanitize=fuzzer,address,undefined (libFuzzer missing? install libclang-rt-14-dev):"
    head -5 "$probe.log"
    exit 77
  fi
fi

# shellcheck disable=SC2054  # the commas are one clang flag
sanitize=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
# shellcheck disable=SC2206
sanitize+=(${MEDSYNTH_FUZZ_CXXFLAGS:-})
cxxflags=(-std=c++20 -O1 -g -fno-omit-frame-pointer "${sanitize[@]}" -I"$root/engine" -I"$here")

# LibTorch for pickle_fuzzer: the project's venv (cmake/MedsynthDependencies.cmake).
torch="${MEDSYNTH_FUZZ_TORCH:-}"
if [ -n "$torch" ] && [ ! -f "$torch/include/ATen/ATen.h" ]; then
  echo "run.sh: MEDSYNTH_FUZZ_TORCH=$torch has no include/ATen/ATen.h; not using it"
  torch=""
elif [ -z "$torch" ]; then
  for candidate in "$root"/.deps/venv/lib/python3*/site-packages/torch; do
    [ -f "$candidate/include/ATen/ATen.h" ] && torch="$candidate" && break
  done
fi

# --- incremental compile: OBJ is current when it is newer than every file its
# .d lists and was made with the same flags.
compiled=0
object_is_current() {
  local obj="$1" flags="$2"
  [ -f "$obj" ] && [ -f "$obj.d" ] && [ -f "$obj.flags" ] || return 1
  [ "$(cat "$obj.flags")" = "$flags" ] || return 1
  local dep
  while read -r dep; do
    [ -n "$dep" ] || continue
    [ -e "$dep" ] && [ ! "$dep" -nt "$obj" ] || return 1
  done < <(sed -e 's/^[^:]*://' -e 's/\\$//' "$obj.d" | tr ' ' '\n')
  return 0
}

compile() {  # compile SOURCE OBJ FLAGS...
  local src="$1" obj="$2"
  shift 2
  local flags="$*"
  if object_is_current "$obj" "$flags"; then return 0; fi
  echo "  compile ${src#"$root"/}"
  if ! nice -n "$nice_level" "$cxx" "$@" -MMD -MF "$obj.d" -c "$src" -o "$obj" 2>"$obj.log"; then
    cat "$obj.log"
    echo "FAIL: cannot compile ${src#"$root"/} (log: $obj.log)"
    rm -f "$obj"
    return 1
  fi
  [ -s "$obj.log" ] && cat "$obj.log"
  echo "$flags" >"$obj.flags"
  compiled=$((compiled + 1))
}

# build NAME "SOURCES" "EXTRA_COMPILE_FLAGS" "LINK_FLAGS"; SOURCES relative to the checkout.
build() {
  local name="$1" sources="$2" extra="$3" link="$4"
  local objects=() src obj base
  for src in $sources; do
    base="$(echo "$src" | tr '/' '_')"
    obj="$out/obj/$name/${base%.cpp}.o"
    mkdir -p "$out/obj/$name"
    local src_extra=""
    # torch_archive_contents.cpp needs the clang 14 work-around (clang14_pickle_value.hpp).
    [ "$src" = engine/weights/torch_archive_contents.cpp ] && src_extra="-include $here/clang14_pickle_value.hpp"
    # shellcheck disable=SC2086
    compile "$root/$src" "$obj" "${cxxflags[@]}" $extra $src_extra || return 1
    objects+=("$obj")
  done
  local binary="$out/bin/$name" relink=0
  [ -x "$binary" ] || relink=1
  for obj in "${objects[@]}"; do [ "$obj" -nt "$binary" ] && relink=1; done
  if [ "$(cat "$binary.link" 2>/dev/null)" != "$link" ]; then relink=1; fi
  if [ $relink -eq 1 ]; then
    echo "  link $name"
    # shellcheck disable=SC2086
    if ! nice -n "$nice_level" "$cxx" "${sanitize[@]}" "${objects[@]}" $link -o "$binary" 2>"$binary.log"; then
      cat "$binary.log"
      echo "FAIL: cannot link $name (log: $binary.log)"
      return 1
    fi
    echo "$link" >"$binary.link"
  fi
}

declare -A sources extra link max_len
sources[config_json_fuzzer]="tests/fuzz/config_json_fuzzer.cpp engine/config/maisi_network_config.cpp engine/config/job_enums.cpp"
extra[config_json_fuzzer]=""
link[config_json_fuzzer]=""
max_len[config_json_fuzzer]=8192

sources[nifti_extension_fuzzer]="tests/fuzz/nifti_extension_fuzzer.cpp engine/volume/nifti_extension.cpp
  engine/volume/nifti_header_guard.cpp engine/volume/nifti_byte_source.cpp engine/volume/nifti_header_fields.cpp
  engine/volume/volume_size_checks.cpp engine/volume/atomic_file.cpp engine/volume/written_nifti_check.cpp
  engine/volume/write_failure_cause.cpp engine/contract/generation_provenance.cpp"
extra[nifti_extension_fuzzer]=""
link[nifti_extension_fuzzer]="-lz -lcrypto"  # generation_provenance: SHA-256 through OpenSSL
max_len[nifti_extension_fuzzer]=8192

sources[dicom_walker_fuzzer]="tests/fuzz/dicom_walker_fuzzer.cpp engine/volume/dicom_file_guard.cpp"
extra[dicom_walker_fuzzer]=""
link[dicom_walker_fuzzer]=""
max_len[dicom_walker_fuzzer]=16384

sources[datalist_fuzzer]="tests/fuzz/datalist_fuzzer.cpp engine/data/case_listing.cpp engine/data/image_conditioning.cpp"
extra[datalist_fuzzer]=""
link[datalist_fuzzer]=""
max_len[datalist_fuzzer]=8192

# The label tables compiled into the engine: data/label_tables.hpp, made as
# engine/data/sources.cmake makes it (each @MEDSYNTH_LABELS_<NAME>@ of the
# template replaced by resources/labels/<name>.json), rewritten only when it changes.
generated="$out/generated"
make_label_tables() {
  local template="$root/engine/data/label_tables.hpp.in" header="$generated/data/label_tables.hpp" line name
  mkdir -p "$generated/data"
  while IFS= read -r line; do
    if [[ $line =~ @MEDSYNTH_LABELS_([A-Z_]+)@ ]]; then
      name="$(echo "${BASH_REMATCH[1]}" | tr 'A-Z_' 'a-z-')"
      printf '%s' "${line%%@*}"
      cat "$root/resources/labels/$name.json" || return 1
      printf '%s\n' "${line##*@}"
    else
      printf '%s\n' "$line"
    fi
  done <"$template" >"$header.new" || return 1
  if cmp -s "$header.new" "$header"; then rm -f "$header.new"; else mv "$header.new" "$header"; fi
}

sources[json_documents_fuzzer]="tests/fuzz/json_documents_fuzzer.cpp engine/data/label_vocabulary.cpp
  engine/eval/organ_quality_check.cpp engine/diffusion/maisi_embedding_metadata.cpp engine/data/image_conditioning.cpp"
extra[json_documents_fuzzer]="-I$generated"
link[json_documents_fuzzer]=""
max_len[json_documents_fuzzer]=8192

sources[pickle_fuzzer]="tests/fuzz/pickle_fuzzer.cpp engine/weights/pickle_machine.cpp engine/weights/pickle_globals.cpp
  engine/weights/pickle_graph.cpp engine/weights/torch_archive_contents.cpp"
max_len[pickle_fuzzer]=4096
if [ -n "$torch" ]; then
  extra[pickle_fuzzer]="-D_GLIBCXX_USE_CXX11_ABI=1 -isystem $torch/include -isystem $torch/include/torch/csrc/api/include"
  # As the project links LibTorch: libstdc++ first (libtorch.so exports its
  # own std::filesystem copies), the nvidia/*/lib folders on the rpath.
  torch_link="-Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state -L$torch/lib -Wl,-rpath,$torch/lib"
  for dir in "$torch"/../nvidia/*/lib; do
    [ -d "$dir" ] && torch_link="$torch_link -Wl,-rpath-link,$(cd "$dir" && pwd) -Wl,-rpath,$(cd "$dir" && pwd)"
  done
  link[pickle_fuzzer]="$torch_link -Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state -ltorch_cpu -lc10"
fi

# --- build
start=$(date +%s)
fuzzers=()
skipped=()
status=0
for name in $only; do
  if [ -z "${sources[$name]:-}" ]; then echo "run.sh: unknown fuzzer '$name'" >&2; exit 2; fi
  if [ "$name" = pickle_fuzzer ] && [ -z "$torch" ]; then
    echo "SKIP pickle_fuzzer: no LibTorch headers (set MEDSYNTH_FUZZ_TORCH to a site-packages/torch, or run installer/install.sh)"
    skipped+=("$name")
    continue
  fi
  echo "build $name"
  if [ "$name" = json_documents_fuzzer ] && ! make_label_tables; then
    echo "FAIL: cannot make data/label_tables.hpp from engine/data/label_tables.hpp.in"
    status=1
    continue
  fi
  if build "$name" "${sources[$name]}" "${extra[$name]}" "${link[$name]}"; then
    fuzzers+=("$name")
  else
    status=1
  fi
done
echo "build: $compiled objects compiled in $(($(date +%s) - start)) s"
[ $status -eq 0 ] || exit 1
if [ ${#fuzzers[@]} -eq 0 ]; then echo "SKIP: no fuzzer could be built here"; exit 77; fi
[ "$seconds" -gt 0 ] || exit 0

# --- run
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
summary=()
for name in "${fuzzers[@]}"; do
  corpus="$out/corpus/$name"
  if [ "${MEDSYNTH_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then rm -rf "$corpus"; fi
  mkdir -p "$corpus" "$out/artifacts/$name"
  cp -n "$here/corpus/$name"/* "$corpus"/ 2>/dev/null
  dict=()
  [ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
  log="$out/logs/$name.log"
  echo "run $name for $seconds s (log: $log)"
  # shellcheck disable=SC2086
  nice -n "$nice_level" "$out/bin/$name" -max_total_time="$seconds" -max_len="${max_len[$name]}" \
    -rss_limit_mb=2048 -timeout="$timeout_s" -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$out/artifacts/$name/" ${MEDSYNTH_FUZZ_ARGS:-} "$corpus" >"$log" 2>&1
  rc=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  if [ $rc -eq 0 ] && [ -n "$execs" ]; then
    summary+=("$name: ${execs} executions (${rate}/s), corpus $(find "$corpus" -type f | wc -l) files, no finding")
  else
    status=1
    artifact="$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')"
    summary+=("$name: FINDING (exit $rc) after ${execs:-?} executions; input: ${artifact:-see log}; log: $log")
    echo "---- $name: last lines of $log"
    grep -v '^#[0-9]' "$log" | tail -60
    echo "----"
  fi
done

echo "fuzz summary ($seconds s each):"
for line in "${summary[@]}"; do echo "  $line"; done
for name in "${skipped[@]}"; do echo "  $name: skipped (no LibTorch)"; done
exit $status

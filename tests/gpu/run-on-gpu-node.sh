#!/usr/bin/env bash
# Builds the engine-only profile on a GPU node against the node's own PyTorch,
# runs the `cuda` tests, and measures medsynth ÷ MONAI on the MAISI workloads
# (issue 18). From a checkout, on the node:
#
#   tests/gpu/run-on-gpu-node.sh [STAGE...]
#     STAGE: build test unit bench (default: these four), and
#            quickstart  the README's quick start on cuda:0, through train and launch
#            ldm         ldm-tiny end to end on cuda:0 (all stages)
#            maisi       NV-Generate-size sampling (medsynth-bench-maisi generate)
#            presets     3 steps of each GPU memory preset, its peak CUDA memory (presets.log)
#
# The node needs a CUDA build of PyTorch in `python3` (or MEDSYNTH_NODE_PYTHON),
# CMake >= 3.25, ninja and a C++20 compiler; it needs no network. What it
# lacks comes from .gpu-node/, filled beforehand on a Debian 12 machine with
# network by tests/gpu/gather-node-packages.sh (Debian 12 packages of ITK,
# GDCM, yaml-cpp, nlohmann-json, CLI11, GoogleTest, zlib's header and Gloo's
# headers; MONAI's wheel). The packages are unpacked into build-gpu/node-root,
# never into /.
#
# Results go to $OUT (the device tool's folder) or build-gpu/out:
#   machine.txt            GPU, driver, torch, CUDA, cuDNN, compiler
#   build.log              configure + build
#   cuda-tests.log         ctest -L cuda -V (every case with what it asserts)
#   unit-tests.log         the engine's unit tests on the node
#   maisi-vs-monai.md/json the benchmark table (tests/bench/maisi_vs_monai.py)
#   workflows.log          quickstart, ldm and maisi: wall time, val/psnr, val/ssim, peak memory
#
# With the device tool (15 minutes of device time a session, 10 a command),
# one call, carrying .gpu-node (7 minutes on the H200 node: build 140 s,
# cuda tests 40 s, bench 240 s):
#   run(command="MEDSYNTH_BENCH_ARGS='--rounds 1 --runs 3 --warmup 1' tests/gpu/run-on-gpu-node.sh build test bench",
#       carry=[".gpu-node"], timeout_s=600)
# Without `unit` among the stages only the engine, the benchmark and the cuda
# tests are built. MEDSYNTH_NODE_CMAKE_ARGS adds CMake arguments;
# MEDSYNTH_NODE_TARGETS builds only those ninja targets (used to check the
# unpacked packages on a CPU machine, docs/performance.md).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
node="$repo/.gpu-node"
build="${MEDSYNTH_BUILD_DIR:-$repo/build-gpu}"
root="$build/node-root"  # not under .gpu-node, which travels
out="${OUT:-$build/out}"
python="${MEDSYNTH_NODE_PYTHON:-$(command -v python3)}"
jobs="${MEDSYNTH_JOBS:-$(nproc)}"
mkdir -p "$out"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test unit bench)

say() { echo "== run-on-gpu-node: $*"; }
die() { echo "run-on-gpu-node: $*" >&2; exit 1; }

describe_machine() {
  {
    echo "date: $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "available", torch.cuda.is_available())' 2>&1
    echo "cmake: $(cmake --version | head -1)"
    echo "ninja: $(ninja --version)"
    echo "c++: $(c++ --version | head -1)"
    echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $(nproc)"
    echo "os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
    # Headers of the node's own that could shadow the unpacked Debian ones.
    echo "node headers: $(ls -d /usr/include/{nlohmann,gtest,gmock,yaml-cpp,CLI,gloo} /usr/local/include/* 2>/dev/null | tr '\n' ' ')"
  } | tee "$out/machine.txt"
}

# Unpacks every carried .deb into build-gpu/node-root and points the CMake packages
# in it at that folder: Debian's ITK, GDCM, GTest and yaml-cpp configs name
# some files by absolute /usr/... paths, which must now mean root/usr/...
# (only paths that exist under root are rewritten; the rest are the node's).
unpack_packages() {
  compgen -G "$node/debs/*.deb" >/dev/null ||
    die "no packages in $node/debs: run tests/gpu/gather-node-packages.sh on a machine with network, and carry .gpu-node"
  if [ ! -f "$root/.unpacked" ]; then
    rm -rf "$root" && mkdir -p "$root"
    local deb
    for deb in "$node"/debs/*.deb; do
      if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$root" || die "cannot unpack $deb"
      else  # a .deb is an ar archive holding data.tar.xz (Debian 12), .zst or .gz
        local member
        member="$(ar t "$deb" | grep '^data\.tar')" || die "no data.tar in $deb"
        case "$member" in
          *.xz) ar p "$deb" "$member" | tar -xJ -C "$root" ;;
          *.zst) ar p "$deb" "$member" | tar --zstd -x -C "$root" ;;
          *) ar p "$deb" "$member" | tar -xz -C "$root" ;;
        esac || die "cannot unpack $deb"
      fi
    done
    "$python" - "$root" <<'PY' || die "cannot rewrite the CMake packages under $root"
import os, re, sys
root = sys.argv[1]
path = re.compile(r'(?<![\w./-])(/usr/[^\s";)$]*)')
for folder, _, files in os.walk(root):
    for name in files:
        if not name.endswith(".cmake"):
            continue
        file = os.path.join(folder, name)
        text = open(file, encoding="utf-8", errors="surrogateescape").read()
        new = path.sub(lambda m: root + m.group(1) if os.path.exists(root + m.group(1)) else m.group(1), text)
        # Debian's ITKConfig.cmake loads every enabled module's configuration
        # before the requested ones, and ITKDCMTK's, ITKHDF5's and ITKMINC's
        # then find_package() DCMTK, HDF5 and MINC, which a node lacks and
        # medsynth does not use. Asked for components (we always are), load
        # only those and what they depend on.
        if name == "ITKConfig.cmake":
            new = new.replace("itk_module_config(ITK ${ITK_MODULES_ENABLED})",
                              "if(NOT ITK_FIND_COMPONENTS)\n  itk_module_config(ITK ${ITK_MODULES_ENABLED})\nendif()")
        if new != text:
            open(file, "w", encoding="utf-8", errors="surrogateescape").write(new)
PY
    # Absolute links: to a file that was carried, point them into root; a
    # -dev package's link name whose library is the node's own (libz.so ->
    # /lib/.../libz.so.1.2.13), at the node's copy of that library.
    local link target name own
    while IFS= read -r link; do
      target="$(readlink "$link")"
      case "$target" in /*) ;; *) continue ;; esac
      if [ -e "$root$target" ]; then
        ln -sfn "$root$target" "$link"
      elif [[ "$link" == *.so ]]; then
        name="$(basename "$link")"
        own="$(ldconfig -p | awk -v n="$name." 'index($1, n) == 1 && /x86-64/ {print $NF; exit}')"
        if [ -n "$own" ]; then ln -sfn "$own" "$link" && echo "run-on-gpu-node: $name -> the node's $own"; fi
      fi
    done < <(find "$root" -type l)
    touch "$root/.unpacked"
  fi
  export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

stage_build() {
  say "build: engine-only profile against $("$python" -c 'import torch; print(torch.__version__)') in $build"
  # Without the unit stage, only what test and bench run (a third of the
  # build: 140 s on the 16-core node); -k 0 builds every other target past
  # one that fails, so the tests that can run still do.
  local targets="${MEDSYNTH_NODE_TARGETS:-}"
  if [ -z "$targets" ] && [[ " ${stages[*]} " != *" unit "* ]]; then
    targets="-k 0 medsynth-engine medsynth-bench-maisi-step medsynth-bench-maisi cuda_training_test cuda_numerics_test cuda_nccl_test cuda_engine_cli_test torch_linkage_test crash_report_test"
  elif [ -z "$targets" ]; then
    targets="-k 0"  # everything; one file the node's compiler refuses costs only its own tests
  fi
  local status=0
  # Debian keeps OpenSSL's configuration.h in the multiarch folder, which the
  # compiler searches only under its own /usr/include: name the unpacked one.
  # shellcheck disable=SC2086
  MEDSYNTH_CONSOLE=off MEDSYNTH_BUILD_DIR="$build" MEDSYNTH_JOBS="$jobs" \
    MEDSYNTH_CMAKE_ARGS="-DMEDSYNTH_TORCH_PYTHON=$python -DCMAKE_PREFIX_PATH=$root/usr -DCMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES=$root/usr/include/x86_64-linux-gnu -DMEDSYNTH_REQUIRE_DCMTK=OFF ${MEDSYNTH_NODE_CMAKE_ARGS:-}" \
    installer/build.sh $targets >"$out/build.log" 2>&1 || status=$?
  grep -E "LibTorch|ITK|error|FAILED" "$out/build.log" | head -40
  if [ $status -ne 0 ]; then
    grep -B2 -A12 "^FAILED" "$out/build.log" | head -80
    [ -x "$build/bin/medsynth-engine" ] || die "the build failed (exit $status): see build.log"
    echo "run-on-gpu-node: the build failed (exit $status), the engine was built: the stages run with what was built"
  fi
  [ -x "$build/bin/medsynth-engine" ] || return 0  # a partial build (checking this script on a CPU machine)
  "$build/bin/medsynth-engine" info --json | tee "$out/info.json"
}

# A crashed test prints its stack (engine/run/crash_report.hpp); frames in
# our own executables read "file(+0xOFFSET)[...]": name them with addr2line,
# appended to the log, since the binaries stay on the node.
resolve_stacks() {
  local log="$1" line file offset
  grep -q "medsynth: fatal signal" "$log" || return 0
  command -v addr2line >/dev/null || { echo "(no addr2line on this node: frames left as offsets)" >>"$log"; return 0; }
  {
    echo "== frames of our executables, named by addr2line"
    grep -oE "[^ :]+\(\+0x[0-9a-f]+\)" "$log" | sort -u | while IFS= read -r line; do
      file="${line%%(*}" offset="${line#*(+}" offset="${offset%)}"
      [ -f "$file" ] && echo "$line -> $(addr2line -Cfpe "$file" "$offset" 2>&1)"
    done
  } >>"$log"
}

stage_test() {
  say "test: ctest -L cuda, and how the programs bind the C++ runtime"
  # TorchLinkage and CrashReport first: the one says whether the C++ runtime's
  # functions come from libstdc++ (the five crashes), the other that a crash
  # would still be reported.
  ctest --test-dir "$build" -R "TorchLinkage|CrashReport" -V --timeout 120 >"$out/cuda-tests.log" 2>&1
  ctest --test-dir "$build" -L cuda -V --timeout 900 >>"$out/cuda-tests.log" 2>&1
  local status=$?
  resolve_stacks "$out/cuda-tests.log"
  # A failed case again, its test folders kept: does it still die when
  # nothing is removed at its end?
  local failed
  failed="$(sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_]*\.[A-Za-z0-9_]*\) (.*/\1/p' "$out/cuda-tests.log" | paste -sd '|')"
  if [ -n "$failed" ]; then
    echo "== again with MEDSYNTH_KEEP_TEST_DIRS=1: $failed" >>"$out/cuda-tests.log"
    MEDSYNTH_KEEP_TEST_DIRS=1 ctest --test-dir "$build" -L cuda -R "$failed" --timeout 900 >>"$out/cuda-tests.log" 2>&1
  fi
  grep -E "tests passed|Skipped|\*\*\*Failed|Not Run|SKIPPED|\[  (PASSED|FAILED) |fatal signal| -> " "$out/cuda-tests.log" | tail -60
  return $status
}

stage_unit() {
  say "unit: the engine's unit tests on the node"
  # MEDSYNTH_UNIT_BUILD_SECONDS / MEDSYNTH_UNIT_TEST_SECONDS bound a short
  # device slot: build what fits, then run the unit tests whose programs
  # were built (the log names the rest).
  local build_limit="${MEDSYNTH_UNIT_BUILD_SECONDS:-0}" test_limit="${MEDSYNTH_UNIT_TEST_SECONDS:-0}"
  if [ "$build_limit" -gt 0 ]; then
    timeout "$build_limit" ninja -C "$build" -j "$jobs" -k 0 >"$out/unit-tests.log" 2>&1
    echo "== unit build: exit $? after at most ${build_limit} s; $(ls "$build"/tests | grep -c _test$) test programs built" | tee -a "$out/unit-tests.log"
  fi
  local limit=()
  [ "$test_limit" -gt 0 ] && limit=(timeout "$test_limit")
  # The slow ones (the CPU quick start, minutes) are the workflows the
  # quickstart and ldm stages run on cuda:0.
  "${limit[@]}" ctest --test-dir "$build" -L unit -LE "bench|cuda|slow" -j "$jobs" --timeout 900 --output-on-failure >>"$out/unit-tests.log" 2>&1
  local status=$?
  tail -5 "$out/unit-tests.log"
  return $status
}

stage_bench() {
  say "bench: medsynth ÷ MONAI (tests/bench/maisi_vs_monai.py)"
  local site="$build/monai-site"
  if ! PYTHONPATH="$site" "$python" -c "import monai" 2>/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$node"/wheels/*.whl ||
      die "cannot install MONAI's wheel from $node/wheels"
  fi
  PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" "$python" tests/bench/maisi_vs_monai.py \
    --bench "$build/bin/medsynth-bench-maisi-step" --python "$python" --out "$out/maisi-vs-monai.json" \
    ${MEDSYNTH_BENCH_ARGS:-} | tee "$out/maisi-vs-monai.md"
  return "${PIPESTATUS[0]}"
}

# The last validation of a run: "val/psnr 30.1 val/ssim 0.92 steps 700".
final_metrics() {
  "$python" - "$1/events.jsonl" <<'PY'
import json, sys
last, status = {}, "?"
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("type") == "metric" and e.get("name", "").startswith("val/"):
        last[e["name"]] = (e["value"], e.get("step"))
    if e.get("type") == "run_finished":
        status = e.get("status")
print(" ".join(f"{k} {v:.4f} (step {s})" for k, (v, s) in sorted(last.items())), "status", status)
PY
}

# One workflow command, timed, its output in workflows.log; prints the run
# folder it made under $2.
timed() {
  local name="$1"; shift
  local start status
  echo "== $name: $*" >>"$out/workflows.log"
  start=$(date +%s%N)
  "$@" >>"$out/workflows.log" 2>&1
  status=$?
  awk -v n="$name" -v s="$status" -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%s: exit %d, %.1f s wall\n", n, s, (b - a) / 1e9 }' |
    tee -a "$out/workflows.log"
  return $status
}

stage_quickstart() {
  say "quickstart: the README's quick start on cuda:0 (train, then launch --nproc-per-node 1)"
  local engine="$build/bin/medsynth-engine" runs="$build/runs-quickstart" run
  rm -rf "$runs"
  timed quickstart-train timeout 400 "$engine" train resources/jobs/quickstart.yaml training.device=cuda --runs-dir "$runs/train" --no-progress
  run="$(ls -d "$runs"/train/*/ 2>/dev/null | head -1)"
  [ -n "$run" ] && final_metrics "$run" | sed 's/^/quickstart-train: /' | tee -a "$out/workflows.log"
  timed quickstart-launch timeout 400 "$engine" launch --nproc-per-node 1 train resources/jobs/quickstart.yaml training.device=cuda \
    --runs-dir "$runs/launch" --no-progress
  run="$(ls -d "$runs"/launch/*/ 2>/dev/null | head -1)"
  [ -n "$run" ] && final_metrics "$run" | sed 's/^/quickstart-launch: /' | tee -a "$out/workflows.log"
}

stage_ldm() {
  say "ldm: ldm-tiny end to end on cuda:0"
  local engine="$build/bin/medsynth-engine" runs="$build/runs-ldm" run
  rm -rf "$runs"
  timed ldm-tiny timeout 400 "$engine" launch --nproc-per-node 1 train resources/jobs/ldm-tiny.yaml training.device=cuda \
    --runs-dir "$runs" --no-progress
  run="$(ls -d "$runs"/*/ 2>/dev/null | head -1)"
  [ -n "$run" ] && { find "$run" -name '*.nii.gz' -path '*output*' | sed 's/^/ldm-tiny: wrote /' | tee -a "$out/workflows.log"; }
}

stage_maisi() {
  say "maisi: NV-Generate-size sampling on cuda:0"
  local bench="$build/bin/medsynth-bench-maisi"
  timed maisi-256x256x128 timeout 300 "$bench" generate --size 256 256 128 --steps 30 --tile 32
  timed maisi-512x512x512 timeout 400 "$bench" generate --size 512 512 512 --steps 30 --tile 32
  grep -A1 "^generate" "$out/workflows.log" | tail -4
}

# The GPU memory presets (resources/jobs/presets/, docs/gpu-presets.md) were
# sized by estimate; each runs a few steps on cuda:0 here and its measured peak
# (run_finished's extra, engine/state/memory_high_water.hpp) goes to
# presets.log, one line per preset: the number that replaces "estimated".
stage_presets() {
  say "presets: a few steps of each GPU memory preset on cuda:0, their peak memory"
  local engine="$build/bin/medsynth-engine" runs="$build/runs-presets" preset name run patch status=0
  rm -rf "$runs"
  for preset in resources/jobs/presets/*.yaml; do
    name="$(basename "$preset" .yaml)"
    case "$name" in fast-ddpm-brats-*) echo "$name: skipped (needs BraTS case folders)" | tee -a "$out/presets.log"; continue ;; esac
    # Simulated phantoms at least as large as the preset's patch, axis by axis
    # (some templates' phantoms are smaller than the larger GPUs' patches).
    patch="$("$python" - "$preset" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def first(key):
    m = re.search(r"^\s*" + key + r":\s*\[([0-9, ]+)\]", text, re.M)
    return [int(v) for v in m.group(1).split(",")] if m else None
patch, phantom = first("patch_size"), first("phantom_size")
if patch and phantom and any(p > q for p, q in zip(patch, phantom)):
    print("[" + ",".join(str(max(p, q)) for p, q in zip(patch, phantom)) + "]")
PY
)"
    timed "preset-$name" timeout 240 "$engine" train "$preset" training.device=cuda training.max_steps=3 \
      training.val_every_steps=1000000 data.source=simulated data.num_train=2 data.num_val=1 output.save_reconstructions=0 \
      ${patch:+"data.phantom_size=$patch"} --runs-dir "$runs/$name" --no-progress || status=1
    run="$(ls -d "$runs/$name"/*/ 2>/dev/null | head -1)"
    [ -n "$run" ] && "$python" - "$name" "$run/events.jsonl" <<'PY' | tee -a "$out/presets.log"
import json, sys
name, extra = sys.argv[1], {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e.get("type") == "run_finished":
        extra = e.get("extra", {})
print(name, " ".join(f"{k} {v}" for k, v in extra.items()) or "no run_finished")
PY
  done
  return $status
}

describe_machine
unpack_packages
status=0
for stage in "${stages[@]}"; do
  case "$stage" in
    build) stage_build || status=1 ;;
    test | unit | bench | quickstart | ldm | maisi | presets)
      [ -x "$build/bin/medsynth-engine" ] || stage_build || exit 1
      "stage_$stage" || status=1 ;;
    *) die "unknown stage '$stage' (build, test, unit, bench, quickstart, ldm, maisi, presets)" ;;
  esac
done
say "done (exit $status); results in $out"
exit $status

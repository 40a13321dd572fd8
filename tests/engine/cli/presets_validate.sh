#!/bin/sh
# Every GPU memory preset (resources/jobs/presets/*.yaml) is a valid job and
# its header states its peak and whether a GPU measured it.
# Usage: presets_validate.sh ENGINE SOURCE_DIR
# The presets name no data of yours (users pass --data). The job's data paths
# are given as the overrides --data stands for (data.source=folder
# data.path=DIR): a folder of volumes or of BraTS case folders, whose empty
# files with the right names are enough for the job's checks. `validate
# --data` would also open every volume, as training does before step 0
# (issue 54 item 5), and at the 80 GB presets build their networks
# (resnet-survival's --data is a CSV of labelled volumes: it is checked as it
# is, on simulated data).
set -u
engine=$1
cd "$2" || exit 1
data=$(mktemp -d) || exit 1
trap 'rm -rf "$data"' EXIT
mkdir "$data/volumes" "$data/cases" "$data/cases/BraTS-GLI-00000-000"
touch "$data/volumes/ct.nii.gz"
for s in t1n t1c t2w t2f seg; do touch "$data/cases/BraTS-GLI-00000-000/BraTS-GLI-00000-000-$s.nii.gz"; done

failed=0
count=0
for f in resources/jobs/presets/*.yaml; do
  count=$((count + 1))
  case $f in
    *fast-ddpm-brats*) set -- data.source=folder "data.path=$data/cases" ;;
    *resnet-survival*) set -- ;; # --data takes a CSV of labelled volumes; simulated as it is
    *) set -- data.source=folder "data.path=$data/volumes" ;;
  esac
  if ! out=$("$engine" validate "$f" "$@" 2>&1); then
    echo "FAIL $f: not a valid job: $out"
    failed=1
  fi
  if ! grep -q '^# Peak: [0-9.]* GiB \(measured\|estimated\)' "$f"; then
    echo "FAIL $f: the header states no '# Peak: N GiB measured|estimated'"
    failed=1
  fi
done
if [ "$count" -lt 20 ]; then
  echo "FAIL resources/jobs/presets: $count presets, expected 5 workflows x 4 GPU sizes"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "$count presets valid"
exit $failed

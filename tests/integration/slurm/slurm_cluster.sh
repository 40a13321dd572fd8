#!/usr/bin/env bash
# A private single-node SLURM (munged + slurmctld + slurmd, all in a temp dir,
# own ports) for tests: `slurm_cluster.sh start DIR` prints the SLURM_CONF to
# export, `slurm_cluster.sh stop DIR` stops it. Nothing outside DIR is used;
# nothing is left running. Settings from PLATFORM-NOTES.md (SLURM 22.05).
set -euo pipefail
cmd="$1"; dir="$(realpath -m "$2")"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

stop() {
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  for _ in $(seq 50); do
    alive=0
    for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
      [ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pid" ] && kill -9 "$(cat "$pid")" 2>/dev/null || true
  done
  return 0
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

mkdir -p "$dir"/{munge,state,spool,log}
chmod 755 "$dir" "$dir/munge"   # the munge socket directory must be world-executable
mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null 2>&1 || \
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --log-file="$dir/log/munged.log" --pid-file="$dir/munged.pid" --seed-file="$dir/munge/seed" --force
ctld_port=$(free_port); d_port=$(free_port)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=medsynthtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 &
slurmd -f "$SLURM_CONF" -N localhost >/dev/null 2>&1 &
for _ in $(seq 100); do
  if sinfo -h -o %T 2>/dev/null | grep -qx idle; then echo "$SLURM_CONF"; exit 0; fi
  sleep 0.1
done
echo "slurm did not come up; logs in $dir/log" >&2
stop
exit 1

#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for tests/integration/test_slurm_pool (docs/contracts.md
# "Slurm pools"): munged with a key of its own, slurmctld and slurmd in the foreground (-D), every
# file under DIR, no system service touched. The node claims 4 CPUs on any machine
# (SlurmdParameters=config_overrides) so that three one-CPU jobs run at once on 2 cores;
# proctrack/linuxproc and task/none need no cgroup. The node has 4 NPUs as a GRES (gres.conf(5):
# `Name=npu File=DIR/dev/davinci[0-3]`, plain files: Slurm only counts and numbers them; the
# chips a job gets are its IDX, which the pool host's script turns into the chips its agent
# offers). Debian 12's Slurm 22.05 (slurm.conf(5)).
#   local-cluster.sh start DIR   prints SLURM_CONF=DIR/slurm.conf once the node is idle (exit 77
#                                when munged, slurmctld or slurmd is not installed)
#   local-cluster.sh stop DIR    stops what start started (by the pids it recorded)
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?directory}
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if [ "$cmd" = stop ]; then
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.runpid" ] || continue
    pid=$(cat "$dir/$p.runpid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$p.runpid"
  done
  exit 0
fi

for p in munged slurmctld slurmd; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || { echo "SKIP: $p is not installed (scripts/install-test-deps)"; exit 77; }
done
mkdir -p "$dir"/{munge,ctld,spool}
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
node=$(hostname -s)
ctld_port=$(free_port)
d_port=$(free_port)
cat >"$dir/slurm.conf" <<CONF
ClusterName=runboxtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$(id -un)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
KillWait=5
InactiveLimit=0
MinJobAge=30
GresTypes=npu
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 Gres=npu:4 State=UNKNOWN
PartitionName=runbox Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$dir/dev"
touch "$dir"/dev/davinci{0,1,2,3}
echo "Name=npu File=$dir/dev/davinci[0-3]" >"$dir/gres.conf"
export SLURM_CONF="$dir/slurm.conf"
setsid /usr/sbin/munged -F --force --key-file="$dir/munge/munge.key" \
  --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
  </dev/null >"$dir/munged.out" 2>&1 &
echo $! >"$dir/munged.runpid"
for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
setsid /usr/sbin/slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/slurmctld.out" 2>&1 &
echo $! >"$dir/slurmctld.runpid"
setsid /usr/sbin/slurmd -D -N "$node" -f "$SLURM_CONF" </dev/null >"$dir/slurmd.out" 2>&1 &
echo $! >"$dir/slurmd.runpid"
for _ in $(seq 300); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
  [ "$state" = idle ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
echo "local-cluster: the node did not become idle (last state: ${state:-none}); see $dir/*.log" >&2
"$0" stop "$dir"
exit 1

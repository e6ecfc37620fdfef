#!/usr/bin/env bash
# ctest `slurm_sweep` (label slurm): a real single-node Slurm cluster on localhost runs tools/doc/sweeps.md's
# job array (tools/slurm_sweep.sbatch) and merge job (tools/slurm_sweep_merge.sbatch), then the
# resubmission of one shard.
#
#   tests/slurm_test.sh TBDRSIM SOURCE_DIR
#
# It installs Debian's slurmctld, slurmd, slurm-client and munge when missing (as root), starts munged,
# slurmctld and slurmd from a temporary folder (its own munge key, socket, ports, state and pid files:
# no systemd, no cgroups) and stops them by their pids on exit. The merged folder must be byte-identical
# to an unsharded `tbdrsim sweep`, and the shards together must simulate as many times as it did (each
# functional configuration in one shard, its cost variants re-costed there); the merge job's log is named
# tbdrsim-sweep-merge-JOBID.out; with a part missing, sweep-merge names the shard to resubmit; the
# resubmitted shard must keep its finished parts and redo the missing one. Not root: skipped (exit 77),
# or failed under TBDR_REQUIRE_EXTERNAL=1.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 TBDRSIM SOURCE_DIR" >&2; exit 2; }
tbdrsim=$(realpath "$1")
src=$(realpath "$2")
script=$src/tools/slurm_sweep.sbatch
merge_script=$src/tools/slurm_sweep_merge.sbatch
packages="slurmctld slurmd slurm-client munge"
started=$(date +%s%N)

fail() { echo "slurm_test: FAIL: $*" >&2; exit 1; }
elapsed() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }

if [ "$(id -u)" -ne 0 ]; then
  [ "${TBDR_REQUIRE_EXTERNAL:-0}" = 1 ] && fail "slurmd must run as root to start jobs"
  echo "slurm_test: skipped (slurmd must run as root)"
  exit 77
fi
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "slurm_test: installing$missing"
  apt-get update -qq
  # The packages' init scripts would start the system's daemons; policy-rc.d forbids it in containers,
  # and this test starts its own anyway.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# ---- the script's own checks, without Slurm -------------------------------------------------------
status=0
SLURM_ARRAY_TASK_ID=7 bash "$script" --shards 6 /nonexistent traces >/dev/null 2>&1 || status=$?
[ $status -eq 2 ] || fail "array task 7 of 6 shards: exit $status, expected 2"
status=0
SLURM_ARRAY_TASK_ID=1 bash "$script" /nonexistent traces >/dev/null 2>&1 || status=$?
[ $status -eq 2 ] || fail "no shard count: exit $status, expected 2"
status=0
bash "$script" --merge /nonexistent >/dev/null 2>&1 || status=$?
[ $status -eq 2 ] || fail "the array script's --merge: exit $status, expected 2 (the merge job is its own script)"

# ---- a single-node cluster in a temporary folder --------------------------------------------------
tmp=$(mktemp -d /tmp/tbdrsim-slurm.XXXXXX)
chmod 755 "$tmp"  # munged wants every folder above its socket searchable by all
stop_daemons() {
  local pidfile pid
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
on_exit() {
  local rc=$?
  stop_daemons
  if [ $rc -ne 0 ] && [ -d "$tmp/log" ]; then
    for f in "$tmp"/log/*.log "$tmp"/submit/*.out; do [ -f "$f" ] && { echo "== $f"; tail -n 20 "$f"; }; done
  fi
  rm -rf "$tmp"
}
trap on_exit EXIT

# Two free TCP ports next to each other (ctest may run this test beside others, never twice at once).
port=$((20000 + ($$ % 2000) * 2))
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || (echo >"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null; do
  port=$((port + 2))
done

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/submit" "$tmp/sweeps"
chmod 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
host=$(hostname -s)
cat >"$tmp/slurm.conf" <<EOF
# Written by tests/slurm_test.sh: one node, no cgroups, every path in $tmp.
ClusterName=tbdrsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=tbdrsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

t=$(date +%s%N)
munged --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munged.seed"
slurmctld
slurmd
node_state=""
for _ in $(seq 1 100); do
  node_state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$node_state" = idle ] && break
  sleep 0.1
done
[ "$node_state" = idle ] || fail "the node is '$node_state' after 10 s, not idle"
echo "slurm_test: munged, slurmctld and slurmd up, node idle in $(elapsed "$t")"

# The simulations a sweep's summary counts ("reuse: G functional configurations, S simulations, ...").
simulations() { sed -n 's/^reuse: [0-9]* functional configurations\?, \([0-9]*\) simulations\?,.*/\1/p' "$@"; }

# Waits until every task of job $1 has finished; fails unless all COMPLETED.
wait_job() {
  local job=$1 what=$2 deadline=$(($(date +%s) + 120)) states
  while :; do
    states=$(squeue -h -t all -j "$job" -o '%T' 2>/dev/null | sort -u | tr '\n' ' ')
    case "$states" in
      "COMPLETED ") return 0 ;;
      *FAILED* | *CANCELLED* | *TIMEOUT* | *NODE_FAIL* | *OUT_OF_MEMORY* | *BOOT_FAIL* | *DEADLINE*)
        fail "$what (job $job): $states" ;;
    esac
    if [ -n "$(squeue -h -j "$job" -o '%r' 2>/dev/null | grep DependencyNeverSatisfied)" ]; then
      fail "$what (job $job): its dependency failed"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what (job $job) not finished after 120 s: $states"
    sleep 0.2
  done
}

# ---- tools/doc/sweeps.md's sweep: the array job and the merge job ---------------------------------
export TBDRSIM=$tbdrsim
cd "$tmp/submit"
trace=$src/traces/default/scene.json
shards=6
sweep_args=("$trace" --vary tile=16x16,32x32,64x64 --vary compression=none,afbc --vary dram.bytes_per_cycle=8,16,32)
out=$tmp/sweeps/tiles

t=$(date +%s%N)
"$tbdrsim" sweep "${sweep_args[@]}" -j 2 --out "$tmp/unsharded" >"$tmp/unsharded.txt" 2>/dev/null
unsharded_simulations=$(simulations "$tmp/unsharded.txt")
[ -n "$unsharded_simulations" ] || fail "the unsharded sweep printed no reuse line: $(cat "$tmp/unsharded.txt")"
echo "slurm_test: unsharded sweep (18 configurations, $unsharded_simulations simulations, -j 2) in $(elapsed "$t")"

t=$(date +%s%N)
jid=$(sbatch --parsable --array=1-$shards "$script" --shards $shards "$out" "${sweep_args[@]}")
merge=$(sbatch --parsable --dependency=afterok:"$jid" "$merge_script" "$out")
wait_job "$jid" "array job"
wait_job "$merge" "merge job"
diff -r "$tmp/unsharded" "$out/merged" >/dev/null || fail "the merged folder differs from the unsharded sweep"
sharded_simulations=0
for k in $(seq 1 $shards); do
  n=$(simulations "$tmp/submit/tbdrsim-sweep-${jid}_$k.out")
  [ -n "$n" ] || fail "task $k's log has no reuse line: $(cat "$tmp/submit/tbdrsim-sweep-${jid}_$k.out")"
  sharded_simulations=$((sharded_simulations + n))
done
[ "$sharded_simulations" -eq "$unsharded_simulations" ] ||
  fail "the $shards shards simulated $sharded_simulations times, the unsharded sweep $unsharded_simulations"
[ -f "$tmp/submit/tbdrsim-sweep-merge-$merge.out" ] || fail "no merge log tbdrsim-sweep-merge-$merge.out: $(ls "$tmp/submit")"
ls "$tmp/submit" | grep -q 4294967294 && fail "a log named with Slurm's NO_VAL array index: $(ls "$tmp/submit")"
echo "slurm_test: array job ($shards tasks, $sharded_simulations simulations) and merge job in $(elapsed "$t");" \
  "merged == unsharded, byte for byte"

# ---- task 3 failed: resubmitted alone, it resumes -------------------------------------------------
# Shard 3 of 6 holds one functional configuration, its 3 cost variants (its sweep.json lists them), in one
# part file named by the first (tools/doc/sweeps.md "Resuming"); losing it is what a task killed mid-run leaves.
shard_dir=$out/shard-3-of-6
mapfile -t mine < <(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["shard_configurations"], sep="\n")' "$shard_dir/sweep.json")
[ ${#mine[@]} -eq 3 ] || fail "shard 3 of 6 lists ${#mine[@]} configurations, expected 3: ${mine[*]}"
part() { printf '%s/parts/%06d.json' "$shard_dir" "$1"; }
[ -f "$(part "${mine[0]}")" ] || fail "shard 3 has no part for configurations ${mine[*]}"
[ "$(wc -l < "$(part "${mine[0]}")")" -eq 3 ] || fail "shard 3's part does not hold its 3 configurations"
rm "$(part "${mine[0]}")" "$shard_dir/results.csv" "$shard_dir/results.json" "$shard_dir/attachments.csv"
kept_before=$(stat -c '%n %i %y' "$out"/shard-2-of-6/parts/*.json)
rm -r "$out/merged"
status=0
"$tbdrsim" sweep-merge "$out"/shard-*-of-6 --out "$tmp/merge-refused" 2>"$tmp/merge-refused.txt" || status=$?
[ $status -eq 2 ] && grep -q "resubmit shard 3 of 6" "$tmp/merge-refused.txt" ||
  fail "sweep-merge with a part of shard 3 missing: exit $status, $(cat "$tmp/merge-refused.txt")"

t=$(date +%s%N)
again=$(sbatch --parsable --array=3 "$script" --shards $shards "$out" "${sweep_args[@]}")
merge=$(sbatch --parsable --dependency=afterok:"$again" "$merge_script" "$out")
wait_job "$again" "resubmitted task 3"
wait_job "$merge" "second merge job"
log=$tmp/submit/tbdrsim-sweep-${again}_3.out
grep -q "3 configurations x 1 trace (0 resumed, 0 failed runs)" "$log" ||
  fail "task 3's log does not say its 3 configurations were redone: $(cat "$log")"
[ -f "$(part "${mine[0]}")" ] || fail "the resubmitted task did not write the part of configurations ${mine[*]}"
[ "$(stat -c '%n %i %y' "$out"/shard-2-of-6/parts/*.json)" = "$kept_before" ] ||
  fail "the resubmitted task rewrote another shard's parts"
ls "$out" | grep -qv '^shard-[1-6]-of-6$\|^merged$' && fail "unexpected folders in $out: $(ls "$out")"
diff -r "$tmp/unsharded" "$out/merged" >/dev/null || fail "after the resubmission the merged folder differs"
echo "slurm_test: task 3 resubmitted alone (its part of 3 configurations redone) and merged again in $(elapsed "$t")"
echo "slurm_test: passed in $(elapsed "$started")"

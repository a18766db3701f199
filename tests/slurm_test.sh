#!/usr/bin/env bash
# The README's Slurm commands ("A class on a Slurm cluster") on a real Slurm: a one-node cluster
# from Debian's slurm-wlm and munge, brought up here (munged, slurmctld and slurmd on localhost,
# in a private folder, on free ports) and always brought down at the end. Without a GPU every
# lesson is waived (exit 77) inside its job; `show`, `submit` and `grade` run.
#   tests/slurm_test.sh CUDALAB REPOSITORY
# Exit 77 (CTest: skipped) when Slurm cannot run here: not root (slurmd launches the jobs), or
# the packages are missing (tools/install-deps installs them).
set -u
cudalab=$(realpath "$1")
repo=$(realpath "$2")
skip() { echo "slurm_test: skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root (CI runs this test as root)"
for tool in munged mungekey slurmctld slurmd srun sbatch squeue scontrol sinfo python3; do
  command -v "$tool" >/dev/null || skip "$tool is missing: tools/install-deps installs slurm-wlm and munge"
done

# The commands of the README's Slurm section, verbatim: the test runs these and no others.
readonly LIVE='srun --gres=gpu:1 --pty cudalab live 03'
readonly SHOW='srun cudalab show 03'
readonly ARRAY='sbatch --array=0-29 tools/slurm/class.sbatch 03 --config class.toml'
readonly STUDENT='srun --gres=gpu:1 cudalab 03 --config class.toml --submit'
readonly RANKS='srun --ntasks=2 --gres=gpu:2 cudalab 10'
readonly SUBMIT='srun cudalab submit mine.json'
readonly GRADE='srun cudalab grade "$CUDALAB_CLASS_DIR"'
for command in "$LIVE" "$SHOW" "$ARRAY" "$STUDENT" "$RANKS" "$SUBMIT" "$GRADE"; do
  grep -qF -- "$command" "$repo/README.md" || { echo "slurm_test: the README does not give: $command"; exit 1; }
done

work=$(mktemp -d /tmp/cudalab-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  SLURM_CONF="$work/slurm.conf" timeout 5 scontrol shutdown >/dev/null 2>&1
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.2
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "slurm_test: $*"
  tail -n 5 "$work"/log/*.log 2>/dev/null
  exit 1
}

# ---- a one-node cluster ---------------------------------------------------------------------
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/bin" "$work/drop"
chmod 755 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge/munge.key"
munged -F -f --key-file="$work/munge/munge.key" --socket="$work/munge/socket" --pid-file="$work/munge/pid" \
  --seed-file="$work/munge/seed" --log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
pids+=($!)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
node=$(hostname)
cat >"$work/slurm.conf" <<EOF
ClusterName=cudalabtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
# No cgroups in a container: processes tracked through /proc, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
# "GPUs" slurmd can count (it drops a GPU without a file): --gres=gpu:N is then granted as on
# a GPU node, and the lessons find no CUDA device behind it. Eight, so that a class's array
# tasks run eight at a time.
GresTypes=gpu
# More CPUs than the machine has (config_overrides): a class's array tasks run side by side.
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=32 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
PartitionName=class Nodes=$node Default=YES MaxTime=10 State=UP
EOF
mkdir -p "$work/dev"
for gpu in 0 1 2 3 4 5 6 7; do
  : >"$work/dev/gpu$gpu"
  echo "Name=gpu File=$work/dev/gpu$gpu" >>"$work/gres.conf"
done
export SLURM_CONF="$work/slurm.conf"
for _ in $(seq 50); do [ -S "$work/munge/socket" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] || fail "the node never became idle: $(sinfo -h -o '%T %E' 2>&1)"
echo "slurm_test: one-node cluster up ($(sinfo -h -o '%P %D %T %G'))"

# ---- the README's commands, from a class's folder ---------------------------------------------
ln -s "$cudalab" "$work/bin/cudalab"
export PATH="$work/bin:$PATH" NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8
export CUDALAB_CLASS_DIR="$work/drop"
cd "$work" || fail "no work folder"
ln -s "$repo/tools" tools
printf '[stream-overlap]\nstreams = 4\n' >class.toml
run() {  # run COMMAND EXPECTED_CODE...: the command through bash, its output in $out
  local command=$1
  shift
  out=$(timeout 30 bash -c "$command" </dev/null 2>&1)
  local code=$?
  for expected in "$@"; do [ "$code" -eq "$expected" ] && { echo "ok   $command (exit $code)"; return; }; done
  fail "$command exited $code, expected $*: $out"
}

run "$LIVE" 77
grep -q "waived" <<<"$out" || fail "live mode without a GPU did not say it was waived: $out"
run "$SHOW" 0
grep -q "recorded run" <<<"$out" || fail "show printed no recorded run: $out"
if cudalab 03 --help 2>/dev/null | grep -q -- "--submit"; then
  run "$STUDENT" 77
else
  echo "skip $STUDENT (this build has no --submit yet)"
fi
run "$RANKS" 77
[ "$(grep -c waived <<<"$out")" -eq 2 ] || fail "each of the two ranks must be waived on its own: $out"

# A class of 30, one array task each.
job=$(sbatch --parsable --array=0-29 tools/slurm/class.sbatch 03 --config class.toml) ||
  fail "sbatch refused the class's array job"
grep -qF "$ARRAY" "$repo/README.md" || fail "the array command left the README"
for _ in $(seq 150); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && echo "ok   $ARRAY (30 tasks ended)" || fail "the array job did not end"
for task in $(seq 0 29); do
  grep -q "waived" "cudalab-${job}_${task}.out" 2>/dev/null || fail "array task $task was not waived: $(cat "cudalab-${job}_${task}.out" 2>&1)"
done

# Hand a run in and grade the drop folder. A run to hand in without a GPU: the lab's reference.
srun cudalab show 03 --format json >mine.json || fail "show --format json through srun failed"
if cudalab help submit >/dev/null 2>&1; then
  run "$SUBMIT" 0
else
  echo "skip $SUBMIT (this build has no submit yet); the run goes into the drop folder by hand"
  cp mine.json "$CUDALAB_CLASS_DIR/mine.json"
fi
run "$GRADE" 0 1
grep -q "03" <<<"$out" || fail "grade showed no row for lesson 03: $out"
echo "slurm_test: the README's Slurm commands ran on a one-node cluster"

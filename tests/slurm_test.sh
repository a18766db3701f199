#!/usr/bin/env bash
# The README's Slurm commands ("A class on a Slurm cluster") on a real Slurm: a one-node cluster
# from Debian's slurm-wlm and munge, brought up here (munged, slurmctld and slurmd on localhost,
# in a private folder, on free ports) and always brought down at the end. Without a GPU every
# lesson is waived (exit 77) inside its job; `show`, `submit` and `grade` run.
#   tests/slurm_test.sh CUDALAB REPOSITORY CUDALAB_CLASS_FAKE
# Exit 77 (CTest: skipped) when Slurm cannot run here: not root (slurmd launches the jobs), the
# packages are missing (slurm-wlm, munge), or the cluster does not come up (munged, slurmctld or
# slurmd fails to start, or the node never turns idle, as in a container that forbids them).
# Exit 1 only when the cluster is up and a README command misbehaves. The whole test runs under
# a watchdog of kBudgetS seconds; every daemon it started is stopped at its end, however it ends.
set -u
readonly kBudgetS=75
cudalab=$(realpath "$1")
repo=$(realpath "$2")
fake=$(realpath "$3")  # tests/unit/class_fake_main.cpp: a lesson run without a GPU
skip() { echo "slurm_test: skipped: $*"; exit 77; }

# The watchdog: this script runs itself again under `timeout`, and whatever the inner run left
# (its daemons are listed in $work/pids as they start) is killed here, by process id.
if [ -z "${CUDALAB_SLURM_TEST_WORK:-}" ]; then
  [ "$(id -u)" -eq 0 ] || skip "slurmd must run as root (CI runs this test as root)"
  for tool in munged slurmctld slurmd srun sbatch squeue scontrol sinfo python3 timeout setsid; do
    command -v "$tool" >/dev/null || skip "$tool is missing (Debian: apt-get install slurm-wlm munge)"
  done
  work=$(mktemp -d /tmp/cudalab-slurm.XXXXXX)
  chmod 755 "$work"
  CUDALAB_SLURM_TEST_WORK=$work timeout --kill-after=5 "$kBudgetS" "$0" "$@"
  code=$?
  while read -r pid; do kill -9 -- "-$pid" "$pid" 2>/dev/null; done <"$work/pids" 2>/dev/null
  rm -rf "$work"
  if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
    echo "slurm_test: FAILED: still running after ${kBudgetS} s; stopped"
    exit 1
  fi
  exit "$code"
fi
work=$CUDALAB_SLURM_TEST_WORK

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

: >"$work/pids"
# start NAME COMMAND...: a daemon in a process group of its own, remembered for the cleanup.
start() {
  local name=$1
  shift
  setsid "$@" >"$work/log/$name.out" 2>&1 &
  echo $! >>"$work/pids"
}
cleanup() {
  SLURM_CONF="$work/slurm.conf" timeout 5 scontrol shutdown >/dev/null 2>&1
  local pids alive
  mapfile -t pids <"$work/pids"
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; done
  for _ in $(seq 20); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null; done
  wait 2>/dev/null
  : >"$work/pids"
}
trap cleanup EXIT
trap 'exit 124' TERM INT HUP
logs() { tail -n 8 "$work"/log/*.log "$work"/log/*.out 2>/dev/null; }
# Bringing the cluster up is the machine's business: when it fails, the test is skipped.
cannot() {
  echo "slurm_test: skipped: the one-node cluster did not come up: $*"
  logs
  exit 77
}
fail() {
  echo "slurm_test: FAILED: $*"
  logs
  exit 1
}

# ---- a one-node cluster ---------------------------------------------------------------------
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/bin" "$work/drop"
chmod 755 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge/munge.key"
start munged munged -F -f --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" --log-file="$work/log/munged.log"
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
[ -S "$work/munge/socket" ] || cannot "munged did not start"
start slurmctld slurmctld -D -i -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF" -N "$node"
for _ in $(seq 75); do
  [ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" = idle ] || cannot "the node did not turn idle within 15 s: $(timeout 5 sinfo -h -o '%T %E' 2>&1)"
echo "slurm_test: one-node cluster up ($(sinfo -h -o '%P %D %T %G'))"

# ---- the README's commands, from a class's folder ---------------------------------------------
ln -s "$cudalab" "$work/bin/cudalab"
export PATH="$work/bin:$PATH" NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 COLUMNS=200
# The class's drop folder as the README makes it (mode 3733, a staff group the student is not in).
export CUDALAB_CLASS_DIR="$work/drop"
install -d -m 3733 -o 0 -g 20000 "$CUDALAB_CLASS_DIR"
cd "$work" || fail "no work folder"
ln -s "$repo/tools" tools
printf '[stream-overlap]\nstreams = 4\n' >class.toml
run() {  # run COMMAND EXPECTED_CODE...: the command through bash, its output in $out
  local command=$1
  shift
  out=$(timeout 20 bash -c "$command" </dev/null 2>&1)
  local code=$?
  for expected in "$@"; do [ "$code" -eq "$expected" ] && { echo "ok   $command (exit $code)"; return; }; done
  fail "$command exited $code, expected $*: $out"
}

run "$LIVE" 77
grep -q "waived" <<<"$out" || fail "live mode without a GPU did not say it was waived: $out"
run "$SHOW" 0
grep -q "recorded run" <<<"$out" || fail "show printed no recorded run: $out"
run "$STUDENT" 77
grep -q "waived" <<<"$out" || fail "a student's run without a GPU did not say it was waived: $out"
run "$RANKS" 77
[ "$(grep -c waived <<<"$out")" -eq 2 ] || fail "each of the two ranks must be waived on its own: $out"

# A class of 30, one array task each.
job=$(timeout 10 sbatch --parsable --array=0-29 tools/slurm/class.sbatch 03 --config class.toml) ||
  fail "sbatch refused the class's array job"
for _ in $(seq 100); do
  [ -z "$(timeout 5 squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(timeout 5 squeue -h -j "$job" 2>/dev/null)" ] || fail "the array job did not end within 20 s"
echo "ok   $ARRAY (30 tasks ended)"
for task in $(seq 0 29); do
  grep -q "waived" "cudalab-${job}_${task}.out" 2>/dev/null ||
    fail "array task $task was not waived: $(cat "cudalab-${job}_${task}.out" 2>&1)"
done

# Runs to hand in without a GPU: two srun tasks of the stand-in for `cudalab 03 --json`
# (tests/unit/class_fake_main.cpp: a made-up GPU, then the real provenance stamp, digest and JSON),
# so that the runs carry what a lesson run under srun carries.
timeout 20 srun --ntasks=2 bash -c "\"$fake\" --json mine-\$SLURM_PROCID.json" </dev/null >"$work/log/fake.out" 2>&1 ||
  fail "two srun tasks of the stand-in lesson failed: $(cat "$work/log/fake.out")"
python3 - "$node" mine-0.json mine-1.json <<'PY' || fail "the runs do not carry their scheduler context"
import json, sys
node = sys.argv[1]
for rank, path in enumerate(sys.argv[2:]):
    s = json.load(open(path))["provenance"]["scheduler"]
    assert s.get("job_id"), (path, s)
    assert s.get("node") == node, (path, s)
    assert s.get("rank") == str(rank) and s.get("world_size") == "2", (path, s)
PY
echo "ok   two srun tasks' runs carry their job, node and rank"
cp mine-0.json mine.json
run "$SUBMIT" 0
grep -q "handed in" <<<"$out" || fail "submit did not say where the run went: $out"
run "srun cudalab submit mine-1.json" 0
# A copy of a built-in reference run is refused in one line (exit 2), through srun too.
srun cudalab show 03 --format json >reference.json </dev/null 2>/dev/null || fail "show --format json through srun failed"
run "srun cudalab submit reference.json" 2
run "$GRADE" 0 1
[ "$(grep -c "node $node" <<<"$out")" -ge 2 ] || fail "grade does not show the node on each row: $out"
echo "slurm_test: the README's Slurm commands ran on a one-node cluster"

#!/usr/bin/env bash
# The Slurm commands of docs/course.md ("A class on a Slurm cluster") on a real Slurm: a one-node cluster
# from Debian's slurm-wlm and munge, brought up here (munged, slurmctld and slurmd on localhost,
# in a private folder, on free ports) and always brought down at the end. Without a GPU every
# lesson is waived (exit 77) inside its job; `show`, `submit` and `grade` run.
#   tests/slurm_test.sh CUDALAB REPOSITORY CUDALAB_CLASS_FAKE
# Exit 77 (CTest: skipped) when Slurm cannot run here: not root (slurmd launches the jobs), the
# packages are missing (slurm-wlm, munge), or the cluster does not come up (munged, slurmctld or
# slurmd fails to start, or the node never turns idle, as in a container that forbids them).
# Exit 1 when the cluster is up and one of those commands misbehaves, or when anything the test
# started (a daemon, slurmstepd, a job's task) is still running after its end. The whole test
# runs under a watchdog of kBudgetS seconds, so that it ends within a minute and a half; every daemon it
# started is stopped at its end, however it ends.
set -u
readonly kBudgetS=85
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
  # Nothing the run started may outlive it: the daemons, slurmstepd and the jobs' tasks all carry
  # the work folder in their environment (zombies have none and are not running).
  left=""
  for _ in $(seq 30); do
    left=""
    for environ in /proc/[0-9]*/environ; do
      pid=${environ#/proc/}
      pid=${pid%/environ}
      { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "CUDALAB_SLURM_TEST_WORK=$work" && left="$left $pid"
    done
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    echo "slurm_test: FAILED: still running after the test:"
    for pid in $left; do ps -o pid=,args= -p "$pid"; kill -9 "$pid" 2>/dev/null; done
    code=1
  fi
  rm -rf "$work"
  if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
    echo "slurm_test: FAILED: still running after ${kBudgetS} s; stopped"
    exit 1
  fi
  exit "$code"
fi
work=$CUDALAB_SLURM_TEST_WORK

# The commands of docs/course.md's Slurm section, verbatim: the test runs these and no others.
readonly LIVE='srun --gres=gpu:1 --pty cudalab live 03'
readonly SHOW='srun cudalab show 03'
readonly ARRAY='sbatch --array=0-29 tools/slurm/class.sbatch 03 --config class.toml'
readonly BATCH='sbatch tools/slurm/class.sbatch 03 --config class.toml'
readonly STUDENT='srun --gres=gpu:1 cudalab 03 --config class.toml --submit'
readonly RANKS='srun --ntasks=2 --gres=gpu:2 cudalab 10'
readonly SUBMIT='srun cudalab submit mine.json'
readonly GRADE='srun cudalab grade "$CUDALAB_CLASS_DIR"'
for command in "$LIVE" "$SHOW" "$ARRAY" "$BATCH" "$STUDENT" "$RANKS" "$SUBMIT" "$GRADE"; do
  grep -qF -- "$command" "$repo/docs/course.md" || { echo "slurm_test: docs/course.md does not give: $command"; exit 1; }
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
# The node's Slurm name is not the host's, so that a run that says `cudalab-n1` took it from
# Slurm (SLURMD_NODENAME), not from the host name a run outside Slurm records.
readonly node=cudalab-n1
cat >"$work/slurm.conf" <<EOF
ClusterName=cudalabtest
SlurmctldHost=$(hostname)(127.0.0.1)
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
# "GPUs" slurmd can count (gres.conf: each a link to /dev/null, as slurmd drops a GPU that is not
# a device file): --gres=gpu:N is then granted as on a GPU node, with CUDA_VISIBLE_DEVICES and
# SLURM_STEP_GPUS set, and the lessons find no CUDA device behind it. Eight, so that a class's
# array tasks run eight at a time.
GresTypes=gpu
# More CPUs than the machine has (config_overrides): a class's array tasks run side by side.
SlurmdParameters=config_overrides
NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=32 RealMemory=1000 Gres=gpu:8 State=UNKNOWN
PartitionName=class Nodes=$node Default=YES MaxTime=10 State=UP
EOF
mkdir -p "$work/dev"
for gpu in 0 1 2 3 4 5 6 7; do
  ln -s /dev/null "$work/dev/gpu$gpu"  # slurmd takes only a character or block device
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

# ---- docs/course.md's commands, from a class's folder ---------------------------------------------
ln -s "$cudalab" "$work/bin/cudalab"
export PATH="$work/bin:$PATH" NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8 COLUMNS=200
# The class's key (docs/grade.md, "The class seal"): the runs below are sealed with it and grade
# checks their seal. A cluster installs cudalab setgid to the class's group; this test, as root,
# names a key readable by root alone in $CUDALAB_CLASS_KEY, which srun passes on to every task.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/class.key"
chmod 0400 "$work/class.key"
export CUDALAB_CLASS_KEY="$work/class.key"
# The class's drop folder as docs/course.md makes it (mode 3733, a staff group the student is not in).
export CUDALAB_CLASS_DIR="$work/drop"
install -d -m 3733 -o 0 -g 20000 "$CUDALAB_CLASS_DIR" && setfacl -d -m u::rw,g::r,o::- "$CUDALAB_CLASS_DIR" ||
  fail "cannot make the drop folder"
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
run "$ARRAY" 0
job=$(sed -n 's/^Submitted batch job \([0-9][0-9]*\)$/\1/p' <<<"$out")
[ -n "$job" ] || fail "sbatch did not say which job it submitted: $out"
for _ in $(seq 100); do
  [ -z "$(timeout 5 squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(timeout 5 squeue -h -j "$job" 2>/dev/null)" ] || fail "the array job did not end within 20 s"
echo "ok   the array job $job: 30 tasks ended"
for task in $(seq 0 29); do
  grep -q "waived" "cudalab-${job}_${task}.out" 2>/dev/null ||
    fail "array task $task was not waived: $(cat "cudalab-${job}_${task}.out" 2>&1)"
done

# The student's own batch job, and the template's loud failures: a hand-in that cannot happen (no
# drop folder), and a node where cudalab is not on PATH. Each job fails, and its log says why.
batch() {  # batch ENV...: the student's sbatch command under ENV, waited for; its log in $out
  local id
  id=$(env "$@" bash -c "${BATCH/sbatch /sbatch --wait }" </dev/null 2>/dev/null | sed -n 's/^Submitted batch job \([0-9][0-9]*\)$/\1/p')
  [ -n "$id" ] || fail "sbatch did not say which job it submitted ($*)"
  out=$(cat "cudalab-${id}"_*.out 2>&1)  # %a of a job that is no array is Slurm's NO_VAL
}
batch CUDALAB_CLASS_DIR="$CUDALAB_CLASS_DIR"
grep -q "waived" <<<"$out" && grep -q "nothing was handed in (cudalab exited 77" <<<"$out" ||
  fail "the student's batch job without a GPU did not say it was waived and nothing handed in: $out"
echo "ok   $BATCH (waived, and says nothing was handed in)"
batch CUDALAB_CLASS_DIR=
grep -q "no drop folder" <<<"$out" && grep -q "nothing was handed in (cudalab exited 2" <<<"$out" ||
  fail "the template did not fail loudly without a drop folder: $out"
echo "ok   the template without a drop folder fails, saying why"
batch PATH=/usr/local/bin:/usr/bin:/bin
grep -q "cudalab is not on PATH on" <<<"$out" || fail "the template did not say cudalab is not on PATH: $out"
echo "ok   the template without cudalab on PATH fails, saying why"

# Runs to hand in without a GPU: two srun tasks of the stand-in for `cudalab 03 --json`
# (tests/unit/class_fake_main.cpp: a made-up GPU, then the real provenance stamp, digest and JSON),
# so that the runs carry what a lesson run under srun carries: one job, this node's Slurm name
# (not the host's), each task's rank, and the two GPUs the job was given.
timeout 20 srun --ntasks=2 --gres=gpu:2 bash -c "\"$fake\" --json mine-\$SLURM_PROCID.json" </dev/null \
  >"$work/log/fake.out" 2>&1 || fail "two srun tasks of the stand-in lesson failed: $(cat "$work/log/fake.out")"
fake_job=$(python3 - "$node" "$(hostname)" mine-0.json mine-1.json <<'PY'
import json, sys
node, host = sys.argv[1], sys.argv[2]
jobs = set()
for rank, path in enumerate(sys.argv[3:]):
    p = json.load(open(path))["provenance"]
    s = p["scheduler"]
    assert s.get("job_id", "").isdigit(), (path, s)
    assert s.get("node") == node and node != host and p["host"] == host, (path, p)
    assert s.get("rank") == str(rank) and s.get("world_size") == "2", (path, s)
    assert s.get("local_rank") == str(rank), (path, s)
    assert len(s.get("gpus", "").split(",")) == 2, (path, s)  # --gres=gpu:2
    jobs.add(s["job_id"])
assert len(jobs) == 1, jobs  # the two tasks of one job step
print(jobs.pop())
PY
) || fail "the runs do not carry their scheduler context: $(cat mine-0.json mine-1.json 2>&1 | head -c 2000)"
echo "ok   two srun tasks' runs carry their job ($fake_job), node ($node), rank and GPUs"
# show reads the scheduler context back from the run.
run "srun cudalab show mine-1.json" 0
for piece in "on $node" "Slurm job $fake_job" "rank 1 of 2"; do
  grep -qF "$piece" <<<"$out" || fail "show does not say '$piece' for a run made under srun: $out"
done
cp mine-0.json mine.json
run "$SUBMIT" 0
grep -q "handed in" <<<"$out" || fail "submit did not say where the run went: $out"
run "srun cudalab submit mine-1.json" 0
[ "$(find "$CUDALAB_CLASS_DIR" -type f -name '*.json' | wc -l)" -eq 2 ] ||
  fail "the drop folder does not hold the two runs handed in: $(ls -la "$CUDALAB_CLASS_DIR")"
# A copy of a built-in reference run is refused in one line (exit 2), through srun too.
srun cudalab show 03 --format json >reference.json </dev/null 2>/dev/null || fail "show --format json through srun failed"
run "srun cudalab submit reference.json" 2
[ "$(find "$CUDALAB_CLASS_DIR" -type f -name '*.json' | wc -l)" -eq 2 ] || fail "the refused copy reached the drop folder"
# grade exits 0, or 1 from a build with uncommitted changes: it flags the runs such a build made.
if "$cudalab" --version | grep -q -- '-dirty$'; then
  run "$GRADE" 1
  grep -q "made by a build with uncommitted changes" <<<"$out" || fail "grade exited 1 for another reason: $out"
else
  run "$GRADE" 0
fi
echo "$out" | sed 's/^/     | /'
[ "$(grep -c "node $node" <<<"$out")" -eq 2 ] || fail "grade does not show the Slurm node on each of the two rows: $out"
grep -q "not sealed by the class" <<<"$out" && fail "grade found a run made under srun not sealed by the class: $out"
echo "slurm_test: the Slurm commands of docs/course.md ran on a one-node cluster"

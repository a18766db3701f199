#!/usr/bin/env bash
# A class on one GPU: N students start the same lesson at the same moment.
#
#   tools/class-sim.sh N LESSON [FLAGS...]
#
# First one lone run of `cudalab LESSON FLAGS` (the yardstick), then N students of
# `cudalab LESSON FLAGS --json FILE`, started together (each waits for one go signal), then one
# row per student:
#   wait     seconds in the GPU queue            (the run's JSON: queue.wait_s)
#   held     seconds it held the GPU             (queue.held_s)
#   wall     seconds the whole process took
#   headline its first headline metric, and that figure against the lone run's
#   compare  `cudalab compare LESSON RUN` against the built-in reference: exit code and verdict
#   env      clean or disturbed                  (environment_verdict; else from other_processes)
# and last the wall time of the class against N × the lone run (taking turns costs about 1×).
# FLAGS go to every run, the lone one too: `tools/class-sim.sh 8 03 --no-queue` is the class
# without the queue. Do not pass --json. It runs on the GPU machine; it is not a unit test.
#
# Environment: CUDALAB (the binary; default build/cudalab, then build-dev/cudalab, then cudalab on
# PATH), CLASS_SIM_KEEP=DIR (keep every run, log and compare output in DIR), and what a real
# course server brings, each staged after the lone run:
#   CLASS_SIM_TENANT=idle|kernels|copies   another user's process on GPU 0 while the class runs
#                                          (tests/tenant: a notebook left open, a training job,
#                                          a data loader); CUDALAB_TENANT names its binary
#   CLASS_SIM_CTRL_Z=SECONDS               the first student to hold the GPU gets Ctrl-Z (SIGTSTP)
#                                          half a second into its turn, and `fg` (SIGCONT) SECONDS
#                                          later, while the others wait behind it
#   CLASS_SIM_STOP=SECONDS                 the same with kill -STOP, which cannot be caught
#   CLASS_SIM_SQUATTER=1                   a process that is no cudalab holds a flock on ticket 1
#                                          of GPU 0's queue for the whole class
#   CLASS_SIM_USERS=1                      student i runs as user cudalab-s<i> (created if missing),
#                                          as a class of real accounts does: with --submit, each
#                                          hands its run in under its own name
#   CLASS_SIM_INSTRUCTOR=USER              students run as USER's pupils: each student runs as the
#                                          user cudalab-student (created if missing), and USER (in
#                                          the queue folder's instructors file) starts
#                                          `cudalab live LESSON` once the class is queued
# The staged events and when the next turn began after each are printed under the table.
# Exit status: 0 when the class ran, whatever the students' results; 2 for a bad argument, a
# missing binary or python3, or a lone run that wrote no JSON (nothing to hold students to).
set -u

die() { echo "class-sim: $*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: tools/class-sim.sh N LESSON [FLAGS...]"
students=$1 lesson=$2
shift 2
case $students in '' | *[!0-9]*) die "N must be a whole number from 1 to 256, not '$students'" ;; esac
if [ "$students" -lt 1 ] || [ "$students" -gt 256 ]; then die "N must be from 1 to 256, not $students"; fi
for flag in "$@"; do
  case $flag in --json | --json=*) die "do not pass --json: every student writes its own" ;; esac
done
command -v python3 >/dev/null || die "python3 is needed to read the runs"

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${CUDALAB:-}
if [ -z "$bin" ]; then
  for candidate in "$repo/build/cudalab" "$repo/build-dev/cudalab" "$(command -v cudalab 2>/dev/null)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then bin=$candidate; break; fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then die "no cudalab binary: build it, or set CUDALAB=PATH"; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/class-sim.XXXXXX") || die "cannot make a temporary folder"
student_pids=() staged_pids=()
cleanup() {
  for pid in "${student_pids[@]}" "${staged_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  [ ${#student_pids[@]} -gt 0 ] && wait "${student_pids[@]}" 2>/dev/null
  [ ${#staged_pids[@]} -gt 0 ] && wait "${staged_pids[@]}" 2>/dev/null
  if [ -n "${CLASS_SIM_KEEP:-}" ]; then
    mkdir -p "$CLASS_SIM_KEEP" && cp -r "$work"/. "$CLASS_SIM_KEEP"/ && echo "class-sim: runs kept in $CLASS_SIM_KEEP" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export NO_COLOR=1

now() { date +%s.%N; }

# The yardstick: one student alone.
echo "class-sim: $bin $lesson${*:+ $*}: a lone run first"
lone_start=$(now)
"$bin" "$lesson" "$@" --json "$work/lone.json" >"$work/lone.log" 2>&1
lone_rc=$?
lone_end=$(now)
if [ ! -s "$work/lone.json" ]; then
  tail -n 5 "$work/lone.log" >&2
  die "the lone run wrote no JSON (exit $lone_rc)"
fi

queue_dir=${CUDALAB_QUEUE_DIR:-/tmp/cudalab-queue}
tenant_bin=${CUDALAB_TENANT:-$(dirname "$bin")/tests/cudalab_tenant}
events="$work/events.txt"
: >"$events"
if [ -n "${CLASS_SIM_TENANT:-}" ]; then
  [ -x "$tenant_bin" ] || die "no tenant binary at $tenant_bin (set CUDALAB_TENANT)"
  "$tenant_bin" "$CLASS_SIM_TENANT" 3600 >"$work/tenant.log" 2>&1 &
  staged_pids+=($!)
  sleep 1.5  # its context exists before the class starts
  echo "$(now) tenant $CLASS_SIM_TENANT started" >>"$events"
fi
if [ -n "${CLASS_SIM_SQUATTER:-}" ]; then
  gpu0=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 2>/dev/null | tr -d ' ')
  [ -n "$gpu0" ] || die "CLASS_SIM_SQUATTER needs nvidia-smi to name GPU 0"
  mkdir -p -m 1777 "$queue_dir" "$queue_dir/$gpu0" 2>/dev/null
  python3 -c 'import fcntl,sys,time; f=open(sys.argv[1],"w"); fcntl.flock(f,fcntl.LOCK_EX); time.sleep(3600)' \
    "$queue_dir/$gpu0/t-00000000000000000001" &
  staged_pids+=($!)
  echo "$(now) squatter pid $! holds ticket 1 of $gpu0" >>"$events"
fi
student_user() { echo ""; }  # who student i runs as ("": whoever runs the class)
if [ -n "${CLASS_SIM_INSTRUCTOR:-}" ] || [ -n "${CLASS_SIM_USERS:-}" ]; then
  mkdir -p -m 1777 "$queue_dir"
  chmod 1777 "$work"
  # The students run as other users, who may not reach the build folder: a copy they can run.
  cp "$bin" "$work/cudalab" && chmod 755 "$work/cudalab" && bin=$work/cudalab
fi
if [ -n "${CLASS_SIM_INSTRUCTOR:-}" ]; then
  id cudalab-student >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin cudalab-student || die "cannot create cudalab-student"
  printf '%s\n' "$CLASS_SIM_INSTRUCTOR" >"$queue_dir/instructors" && chmod 644 "$queue_dir/instructors"
  student_user() { echo cudalab-student; }
fi
if [ -n "${CLASS_SIM_USERS:-}" ]; then
  for i in $(seq 1 "$students"); do
    id "cudalab-s$i" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "cudalab-s$i" || die "cannot create cudalab-s$i"
  done
  student_user() { echo "cudalab-s$1"; }
fi

# Whether process PID holds a GPU's turn: its lock is on a ticket named h-<number> (gpu_queue.hpp).
cat >"$work/holds_turn.py" <<'PY'
import os, sys
queue, pid = sys.argv[1], sys.argv[2]
locked = {int(w[5].split(":")[2]) for w in (l.split() for l in open("/proc/locks")) if len(w) > 5 and w[4] == pid}
for gpu in (d for d in os.listdir(queue) if d.startswith("GPU-")):
    for name in os.listdir(os.path.join(queue, gpu)):
        if name.startswith("h-") and os.lstat(os.path.join(queue, gpu, name)).st_ino in locked:
            sys.exit(0)
sys.exit(1)
PY

# Ctrl-Z or kill -STOP on the first student that holds the GPU, half a second into its turn,
# then SIGCONT after SECONDS.
stage_stop() {  # SIGNAL SECONDS
  local signal=$1 pause=$2 pid="" k
  while [ -z "$pid" ]; do
    for k in $(seq 1 "$students"); do
      [ -s "$work/student$k.pid" ] || continue
      if python3 "$work/holds_turn.py" "$queue_dir" "$(cat "$work/student$k.pid")" 2>/dev/null; then
        pid=$(cat "$work/student$k.pid")
        break
      fi
    done
    sleep 0.02
  done
  sleep 0.5
  echo "$(now) $signal student $k (pid $pid)" >>"$events"
  kill -"$signal" "$pid"
  sleep "$pause"
  echo "$(now) CONT student $k" >>"$events"
  kill -CONT "$pid"
}

# The class: every student waits for the same go signal, then runs.
echo "class-sim: $students students at once"
for i in $(seq 1 "$students"); do
  (
    child=
    trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 143' TERM
    while [ ! -e "$work/go" ]; do sleep 0.005; done
    start=$(now)
    user=$(student_user "$i")
    as_user=()
    [ -n "$user" ] && as_user=(setpriv --reuid="$user" --regid="$user" --clear-groups --)
    "${as_user[@]}" "$bin" "$lesson" "$@" --json "$work/student$i.json" >"$work/student$i.log" 2>&1 &
    child=$!
    echo "$child" >"$work/student$i.pid"
    wait "$child"
    rc=$?
    echo "$rc $start $(now)" >"$work/student$i.times"
  ) &
  student_pids+=($!)
done
sleep 0.2  # let every student reach its starting line
class_start=$(now)
touch "$work/go"
[ -n "${CLASS_SIM_CTRL_Z:-}" ] && { stage_stop TSTP "$CLASS_SIM_CTRL_Z" & staged_pids+=($!); }
[ -n "${CLASS_SIM_STOP:-}" ] && { stage_stop STOP "$CLASS_SIM_STOP" & staged_pids+=($!); }
if [ -n "${CLASS_SIM_INSTRUCTOR:-}" ]; then
  ( sleep 1; echo "$(now) instructor $CLASS_SIM_INSTRUCTOR starts live $lesson" >>"$events"
    printf 'quit\n' | runuser -u "$CLASS_SIM_INSTRUCTOR" -- "$bin" live "$lesson" >"$work/instructor.log" 2>&1
    echo "$(now) instructor's live run ended" >>"$events" ) &
  instructor_pid=$!
fi
wait "${student_pids[@]}"
[ -n "${instructor_pid:-}" ] && wait "$instructor_pid"
class_end=$(now)
student_pids=()

# Each student's run held to the built-in reference run.
for i in $(seq 1 "$students"); do
  if [ -s "$work/student$i.json" ]; then
    "$bin" compare "$lesson" "$work/student$i.json" >"$work/compare$i.txt" 2>&1
    echo $? >"$work/compare$i.rc"
  fi
done

python3 - "$work" "$students" "$lone_rc" "$lone_start" "$lone_end" "$class_start" "$class_end" <<'PY' || die "could not read the runs"
import json, os, sys

work, students, lone_rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lone_wall = float(sys.argv[5]) - float(sys.argv[4])
class_wall = float(sys.argv[7]) - float(sys.argv[6])


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        return run if isinstance(run, dict) else None
    except (OSError, ValueError):
        return None


def headline(run):
    """(key, median, unit) of the run's first headline metric."""
    keys = run.get("headline_metrics") or []
    if not keys:
        return None
    for section in run.get("sections") or []:
        for metric in section.get("metrics") or []:
            if metric.get("key") in (keys[0], f"{section.get('key')}.{metric.get('key')}"):
                median = metric.get("median")
                if isinstance(median, (int, float)):
                    return keys[0], float(median), metric.get("unit") or ""
    return None


def environment(run):
    verdict = run.get("environment_verdict")
    if isinstance(verdict, str):
        return verdict
    for item in run.get("environment") or []:
        if isinstance(item, dict) and item.get("key") == "other_processes":
            return ("clean" if item.get("ok") else "disturbed") + "*"
    return "—"


def seconds(value):
    return f"{value:.2f}" if isinstance(value, (int, float)) else "—"


def compare_verdict(i):
    try:
        rc = open(os.path.join(work, f"compare{i}.rc")).read().strip()
        text = open(os.path.join(work, f"compare{i}.txt"), encoding="utf-8", errors="replace").read()
    except OSError:
        return "—"
    word = "holds" if rc == "0" else "inconclusive" if "inconclusive" in text.lower() else "fails"
    return f"{rc} {word}"


lone = load(os.path.join(work, "lone.json")) or {}
lone_head = headline(lone)
if lone_head:
    print(f"lone run: {lone_head[1]:.4g} {lone_head[2]} ({lone_head[0]}), exit {lone_rc}, {lone_wall:.2f} s")
rows = [("student", "exit", "wait s", "held s", "wall s", "headline", "vs lone", "compare", "env")]
for i in range(1, students + 1):
    run = load(os.path.join(work, f"student{i}.json"))
    try:
        rc, start, end = open(os.path.join(work, f"student{i}.times")).read().split()
        wall = float(end) - float(start)
    except (OSError, ValueError):
        rc, wall = "?", None
    if run is None:
        rows.append((str(i), rc, "—", "—", seconds(wall), "no run", "—", "—", "—"))
        continue
    queue = run.get("queue") if isinstance(run.get("queue"), dict) else {}
    head = headline(run)
    figure = f"{head[1]:.4g} {head[2]}" if head else "—"
    ratio = f"{head[1] / lone_head[1]:.2f}×" if head and lone_head and lone_head[1] else "—"
    rows.append((str(i), rc, seconds(queue.get("wait_s")), seconds(queue.get("held_s")), seconds(wall), figure,
                 ratio, compare_verdict(i), environment(run)))
widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
for row in rows:
    print("  ".join(cell.ljust(widths[c]) if c in (5, 7, 8) else cell.rjust(widths[c]) for c, cell in enumerate(row)))
if any(row[8].endswith("*") for row in rows[1:]):
    print("* from the run's other_processes item (the run has no environment_verdict)")
turns = students * lone_wall
print(f"wall {class_wall:.2f} s for {students} students; {students} × the lone run = {turns:.2f} s; "
      f"ratio {class_wall / turns:.2f}" if turns > 0 else f"wall {class_wall:.2f} s")

# When each student's turn began (its start + its wait), to time what the staged events did.
class_start = float(sys.argv[6])
turn_starts = []
for i in range(1, students + 1):
    run = load(os.path.join(work, f"student{i}.json"))
    try:
        start = float(open(os.path.join(work, f"student{i}.times")).read().split()[1])
    except (OSError, ValueError, IndexError):
        continue
    queue = (run or {}).get("queue") or {}
    if isinstance(queue.get("taken_at"), (int, float)) and queue["taken_at"] > 0:
        turn_starts.append((queue["taken_at"], i))
    elif isinstance(queue.get("wait_s"), (int, float)):
        turn_starts.append((start + queue["wait_s"], i))
try:
    events = [line.split(" ", 1) for line in open(os.path.join(work, "events.txt")).read().splitlines() if line]
except OSError:
    events = []
for at, what in events:
    at = float(at)
    later = sorted(t for t in turn_starts if t[0] >= at)
    nxt = f"; the next turn began {later[0][0] - at:.2f} s later (student {later[0][1]})" if later else ""
    print(f"event at {at - class_start:+.2f} s: {what}{nxt}")
if os.path.exists(os.path.join(work, "instructor.log")):
    text = open(os.path.join(work, "instructor.log"), encoding="utf-8", errors="replace").read()
    waited = [line for line in text.splitlines() if "your turn on" in line]
    longest = max((float((load(os.path.join(work, f"student{i}.json")) or {}).get("queue", {}).get("held_s") or 0)
                   for i in range(1, students + 1)), default=0)
    print(f"instructor: {waited[-1] if waited else 'did not wait'}; the longest student turn held {longest:.2f} s")
PY

#!/bin/sh
# One student file on the lab GPU, through `cudalab exercise` (CTest label gpu): the run's status,
# the line of feedback it must give, the child's time under its limit plus one second, and the
# GPU turn given back (the next run takes its turn at once).
#   usage: exercise_gpu_case.sh CUDALAB LESSON FILE STATUS TEXT [LIMIT_S]
set -u
cudalab=$1 lesson=$2 case_file=$3 status=$4 text=$5 limit=${6:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 COLUMNS=1000  # one finding, one line: the text is grepped whole
"$cudalab" exercise "$lesson" --dir "$work" >/dev/null 2>&1
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "the first run exited $rc"; exit 1; }
cp "$case_file" "$work"/"$lesson"-*.cu
"$cudalab" exercise "$lesson" --dir "$work" --time-limit "$limit" --timeline --color never --json "$work/run.json" \
  >"$work/out" 2>&1
rc=$?
cat "$work/out"
[ $rc -eq 77 ] && exit 77
failed=0
grep -qF -- "$text" "$work/out" || { echo "FAIL: no line says: $text"; failed=1; }
"$cudalab" exercise list --dir "$work" >"$work/list" 2>&1
grep -q "^  $lesson  .*  $status" "$work/list" || { echo "FAIL: status is not '$status':"; cat "$work/list"; failed=1; }
python3 - "$work/run.json" "$limit" "$status" <<'PY' || failed=1
import json, sys
run = json.load(open(sys.argv[1]))
limit = float(sys.argv[2])
# The child that ran the student's code is the run's own process, never a tenant that disturbs it.
busy = [e for e in run.get("environment", []) if e.get("key") == "other_processes" and not e.get("ok")]
if busy and sys.argv[3] == "done":
    sys.exit("FAIL: the run counts a process beside it: " + busy[0]["summary"].get("en", ""))
phases = {p["name"]: p["seconds"] for p in (run.get("queue") or {}).get("phases", [])}
child = [s for name, s in phases.items() if name.startswith("your ")]
if not child:
    sys.exit("FAIL: the run records no phase for the student's code")
if child[0] > limit + 1:
    sys.exit(f"FAIL: the student's code held {child[0]:.2f} s, past the {limit:g} s limit plus one")
print(f"the student's code: {child[0]:.2f} s (limit {limit:g} s); turn held {run['queue']['held_s']:.2f} s")
PY
# The turn was given back: another run takes it at once.
"$cudalab" 01 --stable --queue-timeout 10 >/dev/null 2>&1 || { echo "FAIL: the next run could not take the GPU"; failed=1; }
exit $failed

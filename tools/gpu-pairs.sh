#!/usr/bin/env bash
# What a student on another GPU of the same host does to a lesson's headline: for each lesson, N
# lone runs on GPU 0, then N pairs started at the same moment, one run on GPU 0 and one on GPU 1.
# A headline that moves by more than half the lesson's compare tolerance says the lesson must take
# turns across the GPUs that share its PCIe path (docs/shared-server.md, "Several GPUs").
#
#   tools/gpu-pairs.sh [N] [LESSON...]        (default: 5 pairs of every lesson of one GPU)
#
# Runs on a machine with two GPUs; every run goes through the queue (each GPU has its own), so the
# two runs of a pair measure at once. Environment: CUDALAB (the binary), GPU_PAIRS_KEEP=DIR.
set -u
die() { echo "gpu-pairs: $*" >&2; exit 2; }
pairs=${1:-5}
shift || true
case $pairs in '' | *[!0-9]*) die "N must be a whole number, not '$pairs'" ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${CUDALAB:-$repo/build/cudalab}
[ -x "$bin" ] || die "no cudalab binary at $bin (set CUDALAB)"
lessons=("$@")
# By default every lesson of one GPU this build holds, as the binary lists them (the registry is
# the only list of lessons).
if [ ${#lessons[@]} -eq 0 ]; then
  mapfile -t lessons < <("$bin" list --format json | python3 -c 'import json, sys
for lesson in json.load(sys.stdin)["lessons"]:
    if lesson["gpus_needed"] == 1: print("%02d" % lesson["number"])')
  [ ${#lessons[@]} -gt 0 ] || die "$bin list --format json gave no lessons"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-pairs.XXXXXX") || die "cannot make a temporary folder"
trap '[ -n "${GPU_PAIRS_KEEP:-}" ] && mkdir -p "$GPU_PAIRS_KEEP" && cp -r "$work"/. "$GPU_PAIRS_KEEP"/; rm -rf "$work"' EXIT
export NO_COLOR=1
for lesson in "${lessons[@]}"; do
  for i in $(seq 1 "$pairs"); do
    "$bin" "$lesson" --device 0 --json "$work/$lesson-lone$i.json" >/dev/null 2>&1
  done
  for i in $(seq 1 "$pairs"); do
    "$bin" "$lesson" --device 0 --json "$work/$lesson-pair$i-a.json" >/dev/null 2>&1 &
    "$bin" "$lesson" --device 1 --json "$work/$lesson-pair$i-b.json" >/dev/null 2>&1 &
    wait
  done
done
python3 - "$work" "$pairs" "${lessons[@]}" <<'PY'
import json, os, statistics, sys
work, pairs, lessons = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def headline(run, index=0):
    keys = run.get("headline_metrics") or []
    key = keys[index] if index < len(keys) else None
    for s in run.get("sections") or []:
        for m in s.get("metrics") or []:
            if m.get("key") == key:
                tol = m.get("compare_tolerance") or run.get("compare_tolerance") or 0.15
                return key, m.get("median"), m.get("unit", ""), tol
    return key, None, "", run.get("compare_tolerance") or 0.15

print(f"{'lesson':6} {'headline':28} {'lone':>10} {'paired (GPU 0 | GPU 1)':>30} {'moved':>7} {'tol/2':>6}  verdict")
for lesson in lessons:
    lone = [headline(r)[1] for i in range(1, pairs + 1) if (r := load(f"{work}/{lesson}-lone{i}.json"))]
    lone = [v for v in lone if isinstance(v, (int, float))]
    runs = [load(f"{work}/{lesson}-pair{i}-{side}.json") for i in range(1, pairs + 1) for side in "ab"]
    runs = [r for r in runs if r]
    if not lone or not runs:
        print(f"{lesson:6} no runs")
        continue
    # Every headline the lesson holds a run to, not only its first (08's cudaFree figure moved
    # beside a run on the other GPU while its stream-0 figure held).
    for index in range(len(runs[0].get("headline_metrics") or [None])):
        key, _, unit, tol = headline(runs[0], index)
        lone_values = [v for i in range(1, pairs + 1) if (r := load(f"{work}/{lesson}-lone{i}.json"))
                       for v in [headline(r, index)[1]] if isinstance(v, (int, float))]
        if not lone_values or key is None:
            continue
        base = statistics.median(lone_values)
        a = [headline(r, index)[1] for r in runs[0::2]]
        b = [headline(r, index)[1] for r in runs[1::2]]
        paired = [v for v in a + b if isinstance(v, (int, float))]
        moved = max(abs(v / base - 1) for v in paired) if base and paired else 0
        alone = max(abs(v / base - 1) for v in lone_values) if base else 0  # how far lone runs stray
        envs = sum(1 for r in runs if r.get("environment_verdict") == "disturbed")
        fmt = lambda xs: " ".join(f"{v:.4g}" for v in xs if isinstance(v, (int, float)))
        verdict = "moves: take turns across the path" if moved > tol / 2 and moved > alone else "holds"
        print(f"{lesson:6} {key[:28]:28} {base:>9.4g}{unit[:1]:1} {fmt(a) + ' | ' + fmt(b):>30} {moved:>6.1%} {tol/2:>6.1%}  {verdict}"
              f"  (lone runs strayed {alone:.1%})"
              f"{f'  ({envs} disturbed)' if envs else ''}")
PY

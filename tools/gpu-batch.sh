#!/usr/bin/env bash
# The lab-GPU session in batches (nothing is built there). Logs go to $OUT.
#   tools/gpu-batch.sh BUILD_DIR full      GPU tests, each lesson in every output form and language,
#                                          stable output three times, odd values, timelines
#   tools/gpu-batch.sh BUILD_DIR quick     GPU tests and one run of each lesson
#   tools/gpu-batch.sh BUILD_DIR sanitize  every lesson under compute-sanitizer (tests/sanitize.sh)
set -u
build=${1:?build dir}
mode=${2:-full}
out=${OUT:-/tmp/cudalab-out}
mkdir -p "$out/logs" "$out/runs"
bin=$build/cudalab
export NO_COLOR=1
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv
} >"$out/logs/machine.txt" 2>&1

if [ "$mode" = sanitize ]; then
  echo "== compute-sanitizer"
  tests/sanitize.sh "$bin" 2>&1 | tee "$out/logs/sanitize.txt" | grep -v "^    " | tail -n 40
  tar -C "$out" -czf "$out/logs.tgz" logs && rm -rf "$out/logs" "$out/runs"
  exit 0
fi

echo "== ctest -L gpu"
(cd "$build" && ctest -L gpu --output-on-failure --timeout 300) >"$out/logs/ctest-gpu.txt" 2>&1
tail -n 15 "$out/logs/ctest-gpu.txt"
echo "== unit tests on the GPU machine"
(cd "$build" && ctest -LE gpu --output-on-failure) >"$out/logs/ctest-unit.txt" 2>&1
tail -n 4 "$out/logs/ctest-unit.txt"

slugs=$("$bin" list | awk '/^  [0-9][0-9]  / && !/not built yet/ {print $1"-"$2}')
for s in $slugs; do
  slug=${s#*-}
  echo "== $s"
  "$bin" "$slug" --json "$out/runs/$s.json" >"$out/logs/$s.txt" 2>&1
  echo "exit $?" >>"$out/logs/$s.txt"
  tail -n 30 "$out/logs/$s.txt"
  if [ "$mode" = full ]; then
    "$bin" "$slug" --lang zh >"$out/logs/$s.zh.txt" 2>&1
    for i in 1 2 3; do "$bin" "$slug" --stable >"$out/logs/$s.stable$i.txt" 2>&1; done
    if cmp -s "$out/logs/$s.stable1.txt" "$out/logs/$s.stable2.txt" && cmp -s "$out/logs/$s.stable1.txt" "$out/logs/$s.stable3.txt"; then
      echo "stable: 3 runs byte-identical"
    else
      echo "stable: DIFFERENT"; diff "$out/logs/$s.stable1.txt" "$out/logs/$s.stable2.txt"; diff "$out/logs/$s.stable1.txt" "$out/logs/$s.stable3.txt"
    fi
  fi
done
if [ "$mode" = full ]; then
  echo "== cudalab all --stable, three times"
  for i in 1 2 3; do "$bin" all --stable >"$out/logs/all.stable$i.txt" 2>&1; echo "exit $?" >>"$out/logs/all.stable$i.txt"; done
  if cmp -s "$out/logs/all.stable1.txt" "$out/logs/all.stable2.txt" && cmp -s "$out/logs/all.stable1.txt" "$out/logs/all.stable3.txt"; then
    echo "all --stable: 3 runs byte-identical ($(wc -l <"$out/logs/all.stable1.txt") lines)"
  else
    echo "all --stable: DIFFERENT"; diff "$out/logs/all.stable1.txt" "$out/logs/all.stable2.txt"; diff "$out/logs/all.stable1.txt" "$out/logs/all.stable3.txt"
  fi
  echo "== odd values and hostile environments"
  n=0
  odd() {  # odd ARGS...: one run, its exit code and the lines that matter
    n=$((n + 1))
    "$bin" "$@" >"$out/logs/odd.$n.txt" 2>&1
    local rc=$?
    echo "# cudalab $*" >>"$out/logs/odd.$n.txt"
    printf '%-58s exit %s\n' "$*" "$rc"
    grep -E "✗|speed-up|speedup|faster|error|waived|GB/s at|per kernel|latency|CUDA" "$out/logs/odd.$n.txt" | grep -v "^  [a-zA-Z•]" | head -n 6 | sed 's/^/    /'
  }
  odd stream-overlap --streams 8
  odd stream-overlap --streams 3 --size 1000003
  odd stream-overlap --streams 1
  odd stream-overlap --streams 64
  odd stream-overlap --size 1GiB
  odd stream-overlap --size 900GiB
  odd priority --priority -100
  odd callbacks --callback-ms 50
  odd graph-pitfall --streams 1
  odd graph-pitfall --batches 1
  odd graph-pitfall --layers 1
  odd graph-pitfall --streams 64
  odd graph-pitfall --show-errors
  odd graph-forkjoin --streams 1
  odd graph-forkjoin --batches 1
  odd graph-forkjoin --layers 1
  odd graph-forkjoin --streams 64
  odd device-query --device 7
  CUDA_VISIBLE_DEVICES= "$bin" stream-overlap; echo "CUDA_VISIBLE_DEVICES='' stream-overlap: exit $?"
  "$bin" stream-overlap --repeat 0; echo "stream-overlap --repeat 0: exit $?"
  start=$(date +%s%N)
  "$bin" pinned-vs-pageable >/dev/null 2>"$out/logs/sigint.txt" & pid=$!
  sleep 1.5; kill -INT $pid; wait $pid; rc=$?
  echo "Ctrl-C after 1.5 s into pinned-vs-pageable: exit $rc after $(( ($(date +%s%N) - start) / 1000000 )) ms: $(cat "$out/logs/sigint.txt")"
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | sed 's/^/    left on the GPU: /'
  echo "== timelines"
  "$bin" stream-overlap --timeline --trace "$out/logs/trace-03.json" >"$out/logs/timeline-03.txt" 2>&1; echo "stream-overlap --timeline --trace: exit $?"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('trace events:', len(d['traceEvents'] if isinstance(d, dict) else d))" "$out/logs/trace-03.json"
  for s in $slugs; do "$bin" "${s#*-}" --timeline --color never >"$out/logs/timeline-$s.txt" 2>&1; echo "$s --timeline: exit $?"; done
fi
tar -C "$out" -czf "$out/logs.tgz" logs runs && rm -rf "$out/logs" "$out/runs"

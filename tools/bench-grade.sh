#!/usr/bin/env bash
# How long `cudalab grade` takes over a class of 200 runs: the reference runs copied round-robin
# into a temporary folder, graded 5 times; prints each wall time and the median. A benchmark,
# not a test: its figure depends on the machine. It reports only what it ran: without a binary,
# or when grade ends other than with a verdict (0 or 1), it says so, exits 1 and prints no figure.
#   tools/bench-grade.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
count=${2:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$build/cudalab" ] || [ -d "$build/cudalab" ]; then
  echo "bench-grade: no cudalab binary in $build (build it first: cmake --build $build)" >&2
  exit 1
fi
class=$(mktemp -d)
trap 'rm -rf "$class"' EXIT
refs=("$root"/course-notes/runs/*.json)
for ((i = 0; i < count; i++)); do
  cp "${refs[i % ${#refs[@]}]}" "$class/student$(printf %03d "$i").json"
done
bytes=$(du -sb "$class" | cut -f1)
times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  rc=0
  "$build/cudalab" grade "$class" --format csv > /dev/null || rc=$?
  end=$(date +%s.%N)
  if [ "$rc" -gt 1 ]; then  # 1 is a verdict (a copied run is flagged); anything else timed no grading
    echo "bench-grade: $build/cudalab grade exited $rc; no figure" >&2
    exit 1
  fi
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "bench-grade: $count runs ($((bytes / 1024)) KiB) on $(nproc) cores: $(echo "$sorted" | tr '\n' ' ')s"
echo "bench-grade: median $(echo "$sorted" | sed -n 3p) s"

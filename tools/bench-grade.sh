#!/usr/bin/env bash
# How long `cudalab grade` takes over a class of 200 runs: the reference runs copied round-robin
# into a temporary folder, graded 5 times; prints each wall time and the median. A benchmark,
# not a test: its figure depends on the machine.
#   tools/bench-grade.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
count=${2:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
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
  "$build/cudalab" grade "$class" --format csv > /dev/null || true  # exit 1 is a verdict, not an error
  end=$(date +%s.%N)
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "bench-grade: $count runs ($((bytes / 1024)) KiB) on $(nproc) cores: $(echo "$sorted" | tr '\n' ' ')s"
echo "bench-grade: median $(echo "$sorted" | sed -n 3p) s"

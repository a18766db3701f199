#!/usr/bin/env bash
# Runs every lesson (small parameters from lessons/NN-slug/smoke-args.txt) under compute-sanitizer's
# memcheck (with leak checking), racecheck, synccheck and initcheck. Exit 0 only when every run is
# clean; prints one summary line per lesson and tool. A lesson folder may add compute-sanitizer
# flags in sanitizer-args.txt, one line per tool: "TOOL FLAGS..." (TOOL "all" for every tool).
# Lesson 10 does: NCCL probes the CUDA API and recovers from the errors it gets, and its kernels
# poll flags in buffers nobody initialised, by design.
#   tests/sanitize.sh [path/to/cudalab] [tool ...]
# LESSONS="03 08" limits the run to those lessons (by number).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cudalab=${1:-$here/../build/cudalab}
shift || true
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck synccheck initcheck)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "sanitize: compute-sanitizer not found" >&2
  exit 2
fi
"$cudalab" 01 --device 0 --format json >/dev/null 2>&1
case $? in
  77) echo "sanitize: waived: no CUDA device"; exit 77 ;;
esac

failures=0
runs=0
for folder in "$here"/../lessons/[0-9][0-9]-*/; do
  [ -f "$folder/smoke-args.txt" ] || continue
  name=$(basename "$folder")  # NN-slug: the lesson runs by its number
  number=${name%%-*}
  case " ${LESSONS:-$number} " in *" $number "*) ;; *) continue ;; esac
  args=$(head -n 1 "$folder/smoke-args.txt")
  for tool in "${tools[@]}"; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    if [ -f "$folder/sanitizer-args.txt" ]; then
      while read -r for_tool flags; do
        case "$for_tool" in all | "$tool") read -r -a more <<<"$flags" && extra+=("${more[@]}") ;; esac
      done <"$folder/sanitizer-args.txt"
    fi
    log=$(mktemp)
    start=$(date +%s)
    # shellcheck disable=SC2086 # args are a list of flags by design
    "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
      "$cudalab" "$number" $args --format json --color never >"$log.out" 2>"$log"
    rc=$?
    secs=$(( $(date +%s) - start ))
    # compute-sanitizer writes its summary lines to the program's stdout, stderr holds the rest.
    summary=$(cat "$log" "$log.out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" | sed 's/^========= //' | tr '\n' ' ')
    runs=$((runs + 1))
    if [ $rc -eq 77 ]; then
      printf 'waived  %-22s %-10s %4ss  (not for this machine)\n' "$name" "$tool" "$secs"
    elif [ $rc -eq 0 ]; then
      printf 'clean   %-22s %-10s %4ss  %s\n' "$name" "$tool" "$secs" "$summary"
    else
      failures=$((failures + 1))
      printf 'FAILED  %-22s %-10s %4ss  exit %s  %s\n' "$name" "$tool" "$secs" "$rc" "$summary"
      cat "$log" "$log.out" | grep -E "^=========" | sed -n '1,60p' | sed 's/^/    /'
    fi
    rm -f "$log" "$log.out"
  done
done
echo "sanitize: $runs runs, $failures with errors"
[ $failures -eq 0 ]

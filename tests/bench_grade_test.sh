#!/bin/sh
# tools/bench-grade.sh reports only what it ran: with no binary, or a binary whose grade fails
# (not a verdict), it exits non-zero and prints no figure; with the real binary it prints one.
#   usage: bench_grade_test.sh SOURCE_DIR CUDALAB
set -u
bench=$1/tools/bench-grade.sh
real=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
refused() {  # name, build folder: must exit non-zero with no "median" and one line saying why
  out=$("$bench" "$2" 2 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ] || printf '%s' "$out" | grep -q median || [ -z "$out" ]; then
    echo "FAIL $1: exit $rc, output: $out"
    failures=$((failures + 1))
  else
    echo "ok   $1: exit $rc: $out"
  fi
}
refused "no build folder" "$work/missing"
mkdir "$work/empty"
refused "a build folder without cudalab" "$work/empty"
mkdir -p "$work/folder/cudalab"
refused "cudalab is a folder" "$work/folder"
mkdir "$work/broken"
printf '#!/bin/sh\nexit 3\n' > "$work/broken/cudalab"
chmod +x "$work/broken/cudalab"
refused "grade exits 3" "$work/broken"
mkdir "$work/real"
ln -s "$real" "$work/real/cudalab"
out=$("$bench" "$work/real" 2 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! printf '%s' "$out" | grep -q 'bench-grade: median [0-9.]* s'; then
  echo "FAIL the real binary: exit $rc, output: $out"
  failures=$((failures + 1))
else
  echo "ok   the real binary: $(printf '%s' "$out" | tail -n 1)"
fi
[ "$failures" -eq 0 ]

#!/bin/sh
# `cudalab exercise` on a machine with nvcc and no GPU (CI): every starter and every solution
# compiles through the exercise path and is then waived (77); a syntax error names the student's
# file and line (exit 1); no nvcc is one line (77); a starter of another interface version is
# refused by name (2); and libraries that crash, hang or exit while they load are judged through
# the real child process (tests/unit/exercise_child_main.cpp).
#   usage: exercise_test.sh CUDALAB CHILD_DRIVER SOURCE_DIR
set -u
cudalab=$1 driver=$2 source_dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 LANG=C.UTF-8
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
nvcc=${CUDALAB_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }

numbers=$("$cudalab" exercise list --dir "$work/list" | sed -n 's/^  \([0-9][0-9]\)  .*/\1/p')
[ -n "$numbers" ] || fail "exercise list names no exercise"
for n in $numbers; do
  dir=$work/ex$n
  "$cudalab" exercise "$n" --dir "$dir" >"$work/out" 2>&1 || fail "$n: first run exits $?"
  grep -q "wrote $dir/$n-" "$work/out" || fail "$n: the first run did not say it wrote the starter"
  file=$(ls "$dir"/"$n"-*.cu)
  for version in starter solution; do
    if [ $version = solution ]; then cp "$source_dir"/lessons/"$n"-*/exercise/solution.cu "$file"; fi
    "$cudalab" exercise "$n" --dir "$dir" >"$work/out" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
      grep -q "compiled; there is no GPU here" "$work/out" || fail "$n $version: waived without saying it compiled"
    elif [ $rc -ne 0 ]; then
      fail "$n $version: exit $rc"; cat "$work/out"
    fi
  done
done

dir=$work/ex03
file=$dir/03-stream-overlap.cu
cp "$source_dir"/lessons/03-*/exercise/starter.cu "$file"
printf 'this is not C++\n' >>"$file"
line=$(wc -l <"$file" | tr -d ' ')
"$cudalab" exercise 03 --dir "$dir" >"$work/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a syntax error exits $rc, not 1"
grep -q "$file:$line: error" "$work/out" || { fail "a syntax error does not name $file:$line"; cat "$work/out"; }
"$cudalab" exercise list --dir "$dir" | grep -q "03  stream-overlap  *does not compile" || fail "list does not say: does not compile"

cp "$source_dir"/lessons/03-*/exercise/starter.cu "$file"
CUDALAB_NVCC=/nonexistent/nvcc "$cudalab" exercise 03 --dir "$dir" >"$work/out" 2>&1
rc=$?
[ $rc -eq 77 ] || fail "no nvcc exits $rc, not 77"
[ "$(wc -l <"$work/out")" -eq 1 ] && grep -q "no nvcc found" "$work/out" || { fail "no nvcc is not one line"; cat "$work/out"; }

sed 's/stream_overlap_pipeline_v1\.h/stream_overlap_pipeline_v0.h/' "$source_dir"/lessons/03-*/exercise/starter.cu >"$file"
"$cudalab" exercise 03 --dir "$dir" >"$work/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "an old starter exits $rc, not 2"
grep -q "stream_overlap_pipeline version 0; this cudalab speaks version 1" "$work/out" || { fail "an old starter is not refused by name and version"; cat "$work/out"; }
LANG=zh_CN.UTF-8 "$cudalab" exercise 03 --dir "$dir" --lang zh >"$work/out" 2>&1
grep -q "第 0 版" "$work/out" || { fail "the refusal is not in Chinese under --lang zh"; cat "$work/out"; }

# Libraries that misbehave while they load, through the real child process.
include=$dir/.cudalab/03-stream-overlap.include
[ -f "$include/cudalab/stream_overlap_pipeline_v1.h" ] || fail "the interface header was not written beside the build"
entry='void pipeline(const cudalab_exercise::PipelineLab&) {}
CUDALAB_EXERCISE_ENTRY(pipeline)'
cat >"$work/crash.cu" <<CU
#include <cudalab/stream_overlap_pipeline_v1.h>
static int boom = [] { volatile int* p = nullptr; return *p; }();
$entry
CU
cat >"$work/hang.cu" <<CU
#include <cudalab/stream_overlap_pipeline_v1.h>
static volatile bool forever = true;
static int spin = [] { while (forever) {} return 0; }();
$entry
CU
cat >"$work/exit.cu" <<CU
#include <cstdlib>
#include <cudalab/stream_overlap_pipeline_v1.h>
static int bye = [] { std::exit(3); return 0; }();
$entry
CU
cat >"$work/noentry.cu" <<CU
#include <cudalab/stream_overlap_pipeline_v1.h>
void pipeline(const cudalab_exercise::PipelineLab&) {}
CU
for name in crash hang exit noentry; do
  "$nvcc" -shared -Xcompiler -fPIC -I "$include" -o "$work/$name.so" "$work/$name.cu" >"$work/nvcc.out" 2>&1 || { fail "$name.cu did not compile"; cat "$work/nvcc.out"; }
done
check_verdict() {  # NAME VERDICT LIMIT WORDS
  "$driver" "$work/$1.so" "$3" >"$work/verdict" 2>&1
  got=$(cut -f1 "$work/verdict")
  [ "$got" = "$2" ] || { fail "$1: verdict $got, not $2"; cat "$work/verdict"; }
  grep -q "$4" "$work/verdict" || { fail "$1: the verdict does not say '$4'"; cat "$work/verdict"; }
}
check_verdict crash crashed 10 "crashed with SIGSEGV"
check_verdict hang timed_out 1 "within 1 s"
seconds=$(cut -f2 "$work/verdict")
awk -v s="$seconds" 'BEGIN { exit !(s <= 2.0) }' || fail "the hang was killed after $seconds s, more than its 1 s limit plus one"
check_verdict exit exited_early 10 "exit status 3"
check_verdict noentry load_error 10 "CUDALAB_EXERCISE_ENTRY"

[ $failures -eq 0 ] && echo "exercise: every check passed" || echo "exercise: $failures failed"
[ $failures -eq 0 ]

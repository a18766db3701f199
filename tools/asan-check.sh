#!/usr/bin/env bash
# The bad-input suites under AddressSanitizer and UndefinedBehaviorSanitizer (issue 50 item 7):
# builds the `asan` preset (build-asan/), then runs hostile.inputs and every CPU test (ctest's
# label `unit`) against that build, each sanitizer report written to a file of its own. Prints
# the ctest and hostile summaries and the number of sanitizer reports; exit 0 only when every
# test passed and there were none. Not part of the default CI (a full Debug build, and a
# sanitized binary is several times slower): run it before a release and after a bad-input
# change. Every future finding becomes a case in tests/hostile/ or tests/unit/bad_input_test.cpp.
#   tools/asan-check.sh [--no-build] [-jN]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=1
jobs=-j2
for a in "$@"; do
  case $a in
    --no-build) build=0 ;;
    -j*) jobs=$a ;;
    *) echo "usage: tools/asan-check.sh [--no-build] [-jN]" >&2; exit 2 ;;
  esac
done
cd "$here" || exit 2
if [ "$build" = 1 ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  cmake --preset asan "${launcher[@]}" >/dev/null || { echo "asan-check: configure failed" >&2; exit 2; }
  cmake --build build-asan "$jobs" || { echo "asan-check: build failed" >&2; exit 2; }
fi
[ -x build-asan/cudalab ] || { echo "asan-check: no build-asan/cudalab (run without --no-build)" >&2; exit 2; }
logs=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-asan.XXXXXX")
# log_path: one file per process that reported, so a report from a child is counted too and
# cannot be mistaken for the case's own stderr; leaks are reported at exit.
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0:exitcode=99"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=98"
status=0
# The cases' time limit is for a release build: a sanitized one gets five times as long.
python3 tests/hostile/run.py build-asan/cudalab --runs course-notes/runs --timeout 10 --no-data-limit \
  --log "$logs/hostile-broken.jsonl" || status=1
ctest --test-dir build-asan -L unit -E '^hostile\.inputs$' "$jobs" --output-on-failure --timeout 1800 || status=1
reports=$(find "$logs" -name 'asan.*' -o -name 'ubsan.*' | wc -l)
echo "asan-check: $reports sanitizer reports (in $logs)"
[ "$reports" -eq 0 ] || { status=1; find "$logs" -name 'asan.*' -o -name 'ubsan.*' | head -5 | xargs -r head -3; }
exit "$status"

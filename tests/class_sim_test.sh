#!/usr/bin/env bash
# tools/class-sim.sh end to end without a GPU: students of a stand-in lesson (FAKE, built from
# tests/unit/queue_fake_main.cpp) that holds its turn in the real queue for 0.3 s each. With the
# queue the last of three waits for the other two; with --no-queue nobody waits.
#   tests/class_sim_test.sh FAKE
set -u
fake=${1:?the stand-in lesson binary}
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
export CUDALAB_QUEUE_DIR="$scratch/queue" CUDALAB="$fake" CUDALAB_FAKE_HOLD=0.3
fail() { echo "class_sim_test: $*" >&2; exit 1; }

# The largest wait of the student rows (student, exit 0, wait, ...), and how many there are.
rows() { grep -E '^ +[0-9]+ +0 ' <<<"$1"; }
max_wait() { rows "$1" | awk '{ if ($3 > m) m = $3 } END { print m + 0 }'; }

out=$("$repo/tools/class-sim.sh" 3 fake) || fail "class-sim exited $?"
echo "$out"
[ "$(rows "$out" | wc -l)" -eq 3 ] || fail "expected three students that exited 0"
awk -v w="$(max_wait "$out")" 'BEGIN { exit !(w >= 0.45) }' || fail "the last student did not wait for the other two"
grep -qE '^wall [0-9.]+ s for 3 students; 3 × the lone run' <<<"$out" || fail "no wall-time line"

out=$("$repo/tools/class-sim.sh" 3 fake --no-queue) || fail "class-sim --no-queue exited $?"
echo "$out"
[ "$(rows "$out" | wc -l)" -eq 3 ] || fail "expected three students that exited 0 with --no-queue"
awk -v w="$(max_wait "$out")" 'BEGIN { exit !(w < 0.05) }' || fail "a student waited although --no-queue"
echo "class_sim_test: the queue serialised the class, and --no-queue did not"

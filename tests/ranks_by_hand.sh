#!/usr/bin/env bash
# Lesson 10 launched the way torchrun launches a training script, with the environment set by
# hand: two processes of `cudalab 10 FLAGS...`, each told its place by RANK, WORLD_SIZE and
# LOCAL_RANK, the run named by MASTER_ADDR and MASTER_PORT. Rank 0 must print one run with every
# verify check passed; rank 1 must print nothing on stdout; both must exit 0. Exit 77 (skipped)
# when the ranks are waived (no GPU, no NCCL) and when fewer than two GPUs are visible: there both
# ranks would measure on the one GPU, which the lesson refuses as a usage error (exit 2), rightly.
#   tests/ranks_by_hand.sh CUDALAB FLAGS...
set -u
cudalab=$1
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  gpus=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else
  gpus=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
fi
if command -v nvidia-smi >/dev/null && [ "$gpus" -lt 2 ]; then
  echo "ranks_by_hand: waived: two ranks by hand need two GPUs; $gpus visible"
  exit 77
fi
export MASTER_ADDR=127.0.0.1 MASTER_PORT=$((20000 + $$ % 20000)) WORLD_SIZE=2 NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8
RANK=1 LOCAL_RANK=1 "$cudalab" 10 "$@" >"$out/rank1.out" 2>"$out/rank1.err" &
rank1=$!
RANK=0 LOCAL_RANK=0 "$cudalab" 10 "$@" >"$out/rank0.out" 2>"$out/rank0.err"
code0=$?
wait "$rank1"
code1=$?
cat "$out/rank0.out" "$out/rank0.err" "$out/rank1.err"
if [ "$code0" -eq 77 ] && [ "$code1" -eq 77 ]; then exit 77; fi
fail() { echo "ranks_by_hand: $*"; exit 1; }
[ "$code0" -eq 0 ] || fail "rank 0 exited $code0"
[ "$code1" -eq 0 ] || fail "rank 1 exited $code1"
[ -s "$out/rank1.out" ] && fail "rank 1 printed a report; only rank 0 reports"
grep -q "✓ verify" "$out/rank0.out" || fail "rank 0 printed no verify line"
grep -q "✗ verify" "$out/rank0.out" && fail "a verify check failed"
grep -q "RANK/WORLD_SIZE" "$out/rank0.out" || fail "the run does not say which launcher variables made it"
echo "ranks_by_hand: two ranks by hand, one run, every verify passed"

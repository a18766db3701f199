#!/usr/bin/env bash
# The lab-GPU session in one batch (nothing is built there): GPU tests, each lesson in every
# output form and language, stable output three times, compute-sanitizer. Logs go to $OUT.
#   tools/gpu-batch.sh BUILD_DIR [quick]
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
  echo "== compute-sanitizer"
  tests/sanitize.sh "$bin" 2>&1 | tee "$out/logs/sanitize.txt" | grep -v "^    " | tail -n 40
fi
tar -C "$out" -czf "$out/logs.tgz" logs && rm -rf "$out/logs"

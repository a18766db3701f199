#!/usr/bin/env bash
# The layers of common/ hold only if no file includes a header of a layer above its own. CMake
# already keeps CUDA headers out of the pure targets; this also keeps the folders honest:
#   core   -> (nothing else)          model  -> core
#   report -> core                    lesson -> core, report
#   queue  -> core                    gpu    -> core, queue
#   lessons' params, model and report files -> core, model, report, lesson (never gpu)
# Prints each include that breaks a rule and exits 1 if any does.
#   tools/check-layers.sh [REPO]
set -euo pipefail
repo=${1:-$(dirname "$0")/..}
cd "$repo"
allowed() {  # layer of the including file -> layers it may include
  case $1 in
    core) echo "core" ;;
    model) echo "core model" ;;
    report) echo "core report" ;;
    lesson) echo "core report lesson" ;;
    queue) echo "core queue" ;;
    gpu) echo "core queue gpu" ;;
    pure) echo "core model report lesson" ;;
  esac
}
bad=0
check() {  # FILE LAYER
  local file=$1 layer=$2
  while IFS= read -r target; do
    local to=${target#common/}
    to=${to%%/*}
    if ! grep -qw -- "$to" <<<"$(allowed "$layer")"; then
      echo "check-layers: $file ($layer) includes $target" >&2
      bad=1
    fi
  done < <(sed -n 's/^#include "\(common\/[^"]*\)"/\1/p' "$file")
}
for layer in core queue model report lesson gpu; do
  for f in common/$layer/*.hpp common/$layer/*.cpp common/$layer/*.cu common/$layer/*.cuh; do
    [ -e "$f" ] && check "$f" "$layer"
  done
done
# A lesson's pure files, and the headers from its folder they include (measure.hpp declares the
# Measurements its model and report read; measure.cpp and kernels are the gpu side).
for f in lessons/*/params.hpp lessons/*/measure.hpp lessons/*/model.hpp lessons/*/variants.hpp lessons/*/chunking.* \
         lessons/*/transfer_model.* lessons/*/model.cpp lessons/*/report.hpp lessons/*/report.cpp \
         lessons/*/kernel_shapes.hpp lessons/shared/*/step_model.* lessons/shared/*/step_report.* \
         lessons/shared/*/step_params.hpp lessons/shared/*/step_results.hpp; do
  [ -e "$f" ] && check "$f" pure
done
[ $bad -eq 0 ] && echo "check-layers: every include follows the layers"
exit $bad

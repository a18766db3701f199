#!/usr/bin/env bash
# The layers of common/ hold only if no file includes a header of a layer above its own. CMake
# already keeps CUDA headers out of the pure targets; this also keeps the folders honest:
#   core   -> (nothing else)          model  -> core
#   report -> core                    lesson -> core, report
#   grading -> core, report (compare, grade, the gradebook: only the CLI includes it)
#   queue  -> core                    gpu    -> core, queue
#   exercise -> core, report, lesson (the student's code on the bench: no CUDA)
#   pure (the lessons' params, model and report) -> core, model, report, lesson, exercise (never gpu)
# Which file is in which layer comes from the build, not from file names: each target declares
# its layer (cudalab_layer() in CMakeLists.txt), and CMake writes its sources to
# BUILD/layers/LAYER/TARGET.txt (first line: the folder they are relative to). Every file listed,
# and every header of the repository it includes, transitively, is checked: a header under
# common/L/ by the rules of L, any other header by those of the file that included it (a
# lesson's measure.hpp, included by its model.cpp, is pure).
# Prints each include that breaks a rule and exits 1 if any does.
#   tools/check-layers.sh REPO BUILD
set -euo pipefail
repo=$(cd "${1:?the repository}" && pwd)
layers=${2:?the build folder}/layers
[ -d "$layers" ] || { echo "check-layers: $layers is missing: configure the build first" >&2; exit 1; }
allowed() {  # layer of the including file -> layers it may include
  case $1 in
    core) echo "core" ;;
    model) echo "core model" ;;
    report) echo "core report" ;;
    grading) echo "core report grading" ;;
    lesson) echo "core report lesson" ;;
    exercise) echo "core report lesson exercise" ;;
    queue) echo "core queue" ;;
    gpu) echo "core queue gpu" ;;
    pure) echo "core model report lesson exercise" ;;
  esac
}
# The layer a header of common/ belongs to by its folder; "" for any other file.
folder_layer() {
  case $1 in
    "$repo"/common/*/*) local rest=${1#"$repo"/common/}; echo "${rest%%/*}" ;;
    *) echo "" ;;
  esac
}
bad=0
declare -A seen=()
queue=()  # "LAYER FILE" still to check
for list in "$layers"/*/*.txt; do
  layer=$(basename "$(dirname "$list")")
  base=$(head -n 1 "$list")
  while IFS= read -r source; do
    [ -n "$source" ] || continue
    [[ $source == /* ]] || source=$base/$source
    queue+=("$layer $source")
  done < <(tail -n +2 "$list")
done
[ ${#queue[@]} -gt 0 ] || { echo "check-layers: no layer lists under $layers" >&2; exit 1; }
checked=0
while [ ${#queue[@]} -gt 0 ]; do
  item=${queue[0]}
  queue=("${queue[@]:1}")
  layer=${item%% *} file=${item#* }
  [ -z "${seen[$layer $file]:-}" ] || continue
  seen[$layer $file]=1
  checked=$((checked + 1))
  while IFS= read -r target; do
    # A header of the repository: by its path from the root, or beside the including file.
    if [ -e "$repo/$target" ]; then path=$repo/$target
    elif [ -e "$(dirname "$file")/$target" ]; then path=$(cd "$(dirname "$file")" && pwd)/$target
    else continue  # a generated header (version.hpp) or a system one
    fi
    to=$(folder_layer "$path")
    if [ -n "$to" ] && ! grep -qw -- "$to" <<<"$(allowed "$layer")"; then
      echo "check-layers: ${file#"$repo"/} ($layer) includes $target" >&2
      bad=1
    fi
    queue+=("${to:-$layer} $path")
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done
[ $bad -eq 0 ] && echo "check-layers: every include of $checked files follows the layers"
exit $bad

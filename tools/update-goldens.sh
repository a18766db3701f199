#!/usr/bin/env bash
# Re-renders the golden files beside each reference run in course-notes/runs/. Run it after an
# intentional change to the renderers, then review the diff: the unit test
# Render.ReferenceRunsMatchTheirGoldenFiles compares against these files.
#   tools/update-goldens.sh [path/to/cudalab]
set -euo pipefail
cudalab=${1:-build/cudalab}
for run in course-notes/runs/*.json; do
  base=${run%.json}
  "$cudalab" show "$run" --color never --lang en </dev/null | cat >"$base.txt"
  "$cudalab" show "$run" --stable </dev/null | cat >"$base.stable.txt"
  echo "rendered $base.txt and $base.stable.txt"
done

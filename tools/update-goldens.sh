#!/usr/bin/env bash
# Re-renders the golden files beside each reference run in course-notes/runs/. Run it after an
# intentional change to the renderers, then review the diff: the unit test
# Render.ReferenceRunsMatchTheirGoldenFiles compares against these files.
#   tools/update-goldens.sh [path/to/cudalab]
set -euo pipefail
cudalab=${1:-build/cudalab}
# Each is shown as the built-in reference it is (by its lesson's number): shown as a file, it would
# be marked as a copy of itself, a line the golden test (which renders the run alone) never prints.
# Rebuild first: the binary embeds these runs.
for run in course-notes/runs/*.json; do
  base=${run%.json}
  lesson=$(basename "$base"); lesson=${lesson%%-*}
  "$cudalab" show "$lesson" --color never --lang en </dev/null | cat >"$base.txt"
  "$cudalab" show "$lesson" --stable </dev/null | cat >"$base.stable.txt"
  echo "rendered $base.txt and $base.stable.txt"
done

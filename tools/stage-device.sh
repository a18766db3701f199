#!/usr/bin/env bash
# Copies what a lab-GPU run needs from a build folder into .device/ (git-ignored; carried by the
# device tool): stripped binaries and the CTest files, so nothing is built on the GPU machine.
#   tools/stage-device.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build-dev}
# GoogleTest lists its tests when ctest first reads the build folder: make that happen here.
(cd "$build" && ctest -N >/dev/null)
rm -rf .device && mkdir -p .device
(cd "$build" && find . -name CMakeFiles -prune -o -type f \( -name 'CTestTestfile.cmake' \
   -o -name '*_include.cmake' -o -name '*_tests.cmake' -o -name cudalab -o -name cudalab_unit_tests -o -name cudalab_tenant \
   -o -name cudalab_queue_fake -o -name cudalab_class_fake \) -print) |
while read -r f; do
  mkdir -p ".device/$build/$(dirname "$f")"
  cp "$build/$f" ".device/$build/$f"
done
strip ".device/$build/cudalab" ".device/$build/tests/cudalab_unit_tests" ".device/$build/tests/cudalab_tenant" ".device/$build/tests/cudalab_class_fake"
# Discovered test lists must stay newer than the binaries, or ctest would re-run discovery.
touch .device/"$build"/tests/*_tests.cmake
du -sh .device

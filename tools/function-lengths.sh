#!/usr/bin/env bash
# Every function under DIR (default lessons/) must fit beside the lecture's code on one slide: at most
# LIMIT lines (default 80), from its signature line to its closing brace, as Universal Ctags
# sees them. Prints the longest few and each one over the limit; exits 1 if any is.
#   tools/function-lengths.sh [LIMIT] [DIR]
set -euo pipefail
limit=${1:-80}
dir=${2:-$(dirname "$0")/../lessons}
command -v ctags >/dev/null || { echo "function-lengths: ctags not found (tools/install-deps installs universal-ctags)" >&2; exit 2; }
ctags --version | grep -q "Universal Ctags" || { echo "function-lengths: needs Universal Ctags" >&2; exit 2; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
ctags -R -x --_xformat='%{end} %{line} %{input}:%{line} %{name}' --kinds-C++=f --fields=+e \
      --langmap=C++:+.cu.cuh --languages=C++ "$dir" |
  awk -v limit="$limit" '
    $1 ~ /^[0-9]+$/ { n = $1 - $2 + 1; print n, $3, $4 }' |
  sort -rn > "$table"
count=$(wc -l < "$table")
over=$(awk -v limit="$limit" '$1 > limit' "$table")
echo "function-lengths: $count functions under $dir; the longest:"
head -5 "$table" | sed 's/^/  /'
if [ -n "$over" ]; then
  echo "function-lengths: longer than $limit lines:" >&2
  echo "$over" | sed 's/^/  /' >&2
  exit 1
fi

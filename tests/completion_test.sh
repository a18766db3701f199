#!/usr/bin/env bash
# Tab completion as bash runs it: source the generated script, set COMP_WORDS/COMP_CWORD as bash
# would for a half-typed line, call the completion function and read COMPREPLY (built with
# compgen). Covers every subcommand, the values of --lang, --format, --color and --memory, files
# after show and compare, folders after grade, and flags after `--config FILE NN`, the order the
# README and docs/presets.md show.
#   tests/completion_test.sh path/to/cudalab
set -u
cudalab=${1:?path to cudalab}
# shellcheck disable=SC1090
source <("$cudalab" completion bash) || { echo "completion_test: the bash script does not load"; exit 1; }
failures=0

# offers LINE WORD...: completing LINE (its last word half-typed, or "" after a space) offers
# every WORD.
offers() {
  local line=$1
  shift
  local typed=()
  read -r -a typed <<<"$line"
  COMP_WORDS=(cudalab "${typed[@]}")
  [[ -z $line || $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  set +u  # the completion function runs as it would in an interactive shell
  _cudalab
  set -u
  local want
  for want in "$@"; do
    if ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$want"; then
      echo "completion_test: 'cudalab $line<Tab>' does not offer '$want' (offered: ${COMPREPLY[*]:-nothing})"
      failures=$((failures + 1))
    fi
  done
}

subcommands=$("$cudalab" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^[^ ]/ {on = 0}')
[ -n "$subcommands" ] || { echo "completion_test: --help lists no commands"; exit 1; }
# shellcheck disable=SC2086
offers "" $subcommands 03
for sub in $subcommands; do offers "${sub:0:4}" "$sub"; done
offers "03 --lang " zh en
offers "show 03 --lang " zh en
offers "03 --format " text json
offers "compare 03 x.json --format " text md csv
offers "grade runs/ --format " text md csv
offers "02 --memory " all pageable pinned registered
offers "03 --memory " both pinned pageable
offers "--config class.toml 03 --st" --stable --streams --strict
offers "--config class.toml stream-overlap --ti" --timeline
offers "show 03 --po" --portable
offers "show 03 --pa" --pause
offers "live 03 --str" --streams
offers "completion " bash zsh fish
offers "03 --color " auto always never
offers "show 03 --color " auto always never
# A run is a lesson or a file; grade takes a folder.
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
mkdir "$workdir/submissions" && touch "$workdir/mine.json"
cd "$workdir" || exit 1
offers "show " 03 mine.json
offers "show mi" mine.json
offers "compare 03 " mine.json
offers "grade " submissions
offers "grade sub" submissions

if [ "$failures" -gt 0 ]; then
  echo "completion_test: $failures missing"
  exit 1
fi
echo "completion_test: every subcommand, choice values and flags after --config FILE NN complete"

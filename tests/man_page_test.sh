#!/usr/bin/env bash
# The man page: built from --help's own words, rendered by groff without a warning, naming every
# command and lesson that --help lists, and the same page `cudalab help --man` prints.
#   tests/man_page_test.sh path/to/cudalab path/to/cudalab.1
set -u
cudalab=${1:?path to cudalab}
page=${2:?path to cudalab.1}
failures=0
fail() { echo "man_page_test: $*"; failures=$((failures + 1)); }

[ -s "$page" ] || { echo "man_page_test: $page is missing or empty"; exit 1; }
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff failed"
[ -z "$warnings" ] || fail "groff warns: $warnings"
rendered=$(MANWIDTH=80 man -l "$page" 2>/dev/null) || fail "man -l cannot read it"
for heading in NAME SYNOPSIS COMMANDS "COMMON OPTIONS" LESSONS "EXIT STATUS"; do
  grep -q "^$heading" <<<"$rendered" || fail "no $heading section"
done
subcommands=$("$cudalab" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^[^ ]/ {on = 0}')
[ -n "$subcommands" ] || fail "--help lists no commands"
for sub in $subcommands; do
  grep -qE "^   $sub( |$)" <<<"$rendered" || fail "no entry for $sub"
done
for flag in --device --streams --print-config --version; do
  grep -q -- "$flag" <<<"$rendered" || fail "no $flag"
done
diff -q <("$cudalab" help --man --lang en) "$page" >/dev/null || fail "help --man differs from the built page"
if [ "$failures" -gt 0 ]; then
  echo "man_page_test: $failures problems"
  exit 1
fi
echo "man_page_test: groff renders the page cleanly; every command and lesson is in it"

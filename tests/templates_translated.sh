#!/bin/sh
# Every message template in the code has Chinese, and every catalogue entry is a template with
# named placeholders: gettext's own tools, as a translator would run them. xgettext collects the
# templates (the literals given to msg(), Message, tr(), the words of arg(), the error types, N_(),
# and the report builder's calls that take words: a label, a title, a check's summary, a note),
# msgcat joins the zh catalogues, msgmerge sets them against the templates, and msgattrib lists
# every template no catalogue translates.
#   usage: templates_translated.sh SOURCE_DIR
set -eu
source_dir=$1
for tool in xgettext msgcat msgmerge msgattrib; do
  command -v "$tool" >/dev/null || { echo "$tool not found: tools/install-deps installs gettext"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$source_dir"
find cli common lessons -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' | LC_ALL=C sort > "$work/files"
xgettext --language=C++ --from-code=UTF-8 --no-location --sort-output -k -kmsg:1 -kMessage:1 -ktr:2 -karg:2 -kN_:1 \
  -kmeasured:2 -kderived:2 -kset_aside:2 -kfact:2 -ktext_cell:1 -ksection:2 -kverify:3 -kexpect:3 -ktry_next:2 \
  -kheadline:1 -kwith_note:1 \
  -kError:1 -kUsageError:1 -kWaivedError:1 -kNoGpuError:1 -kRuntimeError:1 -kInterruptedError:1 \
  -kQueueTimeoutError:1 -kQueueUnavailableError:1 -kRendezvousError:1 \
  --files-from="$work/files" -o "$work/templates.pot.raw"
# The catalogue looks a template up without its indent (translate.cpp): so does this check.
sed 's/^msgid "  */msgid "/' "$work/templates.pot.raw" > "$work/templates.pot"
templates=$(grep -c '^msgid "' "$work/templates.pot" || true)
[ "$templates" -gt 10 ] || { echo "xgettext found only $templates templates"; exit 1; }
find course-notes/zh -name '*.po' | LC_ALL=C sort > "$work/catalogues"
# A template names its placeholders: an entry with an anonymous {} is a pattern over finished
# English, which nothing looks up any more.
if xargs grep -Hn '^msgid ".*{}' < "$work/catalogues" > "$work/anonymous"; then
  cat "$work/anonymous"
  echo "entries with an anonymous {} (name each placeholder): $(wc -l < "$work/anonymous")"
  exit 1
fi
msgcat --use-first --files-from="$work/catalogues" -o "$work/zh.po"
msgmerge --quiet --no-fuzzy-matching --no-wrap "$work/zh.po" "$work/templates.pot" -o "$work/merged.po"
# A template of placeholders and punctuation alone ("{problem}; {hint}") has no words to translate.
msgattrib --untranslated --no-obsolete --no-wrap "$work/merged.po" | grep '^msgid "' | grep -v '^msgid ""$' |
  while IFS= read -r line; do
    words=$(printf '%s' "${line#msgid }" | sed 's/{[a-z][a-z0-9_]*}//g' | LC_ALL=C tr -d '\000-\100\133-\140\173-\177')
    [ -z "$words" ] || printf '%s\n' "$line"
  done > "$work/missing"
if [ -s "$work/missing" ]; then
  cat "$work/missing"
  echo "templates without Chinese: $(wc -l < "$work/missing")"
  exit 1
fi
echo "every template has Chinese: $((templates - 1)) templates"

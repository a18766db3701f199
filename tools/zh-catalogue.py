#!/usr/bin/env python3
"""The zh label catalogues (course-notes/zh/labels/*.txt) against the reference runs.

Lists every English string a reference run holds that no catalogue entry translates, the same
way the C++ renderer matches them (common/report/translate.cpp):
  - an entry is a pair of lines "en: TEXT" / "zh: TEXT"; '#' lines and blank lines are comments;
  - TEXT may hold {} placeholders: in en each matches a non-empty stretch (the shortest that lets
    the next literal piece follow); in zh, {} takes the captures in order and {1}, {2}... by number;
  - captures are translated in turn (so "{} pinned" with "4KiB" or "depth-first" works);
  - surrounding whitespace is kept and not part of the match; exact entries win over patterns,
    the lesson's own file over labels/cudalab.txt; among patterns the most specific wins (the most
    literal text), and among equals the first.
Usage: tools/zh-catalogue.py [NN-slug ...]   (default: every reference run)
"""
import glob, json, os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')

def load(name):
    path = os.path.join(ROOT, 'course-notes', 'zh', 'labels', name + '.txt')
    entries = []
    if not os.path.exists(path):
        return entries
    en = None
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            continue
        if line.startswith('en: '):
            en = line[4:].strip(' \t')  # without its indent, as the binary reads it (translate.cpp)
        elif line.startswith('zh: ') and en is not None:
            entries.append((en, line[4:].strip(' \t')))
            en = None
        else:
            sys.exit(f'{path}:{n}: expected "en: ..." then "zh: ..."')
    return entries

def match(pattern, s):
    pieces = pattern.split('{}')
    if len(pieces) == 1:
        return [] if s == pattern else None
    head, tail = pieces[0], pieces[-1]
    if not s.startswith(head) or not s.endswith(tail) or len(s) < len(head) + len(tail) + len(pieces) - 1:
        return None
    end = len(s) - len(tail)
    pos, caps = len(head), []
    for piece in pieces[1:-1]:
        idx = s.find(piece, pos + 1)
        if idx < 0 or idx + len(piece) > end:
            return None
        caps.append(s[pos:idx])
        pos = idx + len(piece)
    if pos >= end:
        return None
    caps.append(s[pos:end])
    return caps

def fill(zh, caps):
    out, i = [], 0
    for tok in re.split(r'(\{\d*\})', zh):
        if tok == '{}':
            out.append(caps[i] if i < len(caps) else ''); i += 1
        elif re.fullmatch(r'\{\d+\}', tok):
            k = int(tok[1:-1]) - 1
            out.append(caps[k] if k < len(caps) else '')
        else:
            out.append(tok)
    return ''.join(out)

def translate(s, entries):
    core = s.strip()
    if not core:
        return s
    lead, trail = s[:len(s) - len(s.lstrip())], s[len(s.rstrip()):]
    for en, zh in entries:
        if '{}' not in en and en == core:
            return lead + zh + trail
    best = None  # the most specific pattern: most literal text; among equals, the first
    for en, zh in entries:
        if '{}' in en:
            literal = len(en.replace('{}', '').encode('utf-8'))
            if best is not None and literal <= best[0]:
                continue
            caps = match(en, core)
            if caps is not None:
                best = (literal, zh, caps)
    if best is None:
        return None
    return lead + fill(best[1], [translate(c, entries) or c for c in best[2]]) + trail

def strings_of(run):
    out = [run.get('headline', '')]
    for s in run['sections']:
        out.append(s['title'])
        for m in s['metrics']:
            out += [m['label'], m.get('note', '')]
        for f in s['facts']:
            out += [f['label'], f['value'], f.get('note', '')]
        for t in s.get('tables', []):
            out += t['columns']
            out += [c.get('text', '') for row in t['rows'] for c in row]
        for p in s.get('plots', []):
            out += [p['title'], p['x_label'], p['y_label']] + [x['name'] for x in p['series']]
    for c in run['checks']:
        out += [c['summary'], c.get('detail', '')]
    out += [t['why'] for t in run['try_next']]
    out += [e['summary'] for e in run.get('environment', [])] + run.get('warnings', [])
    for t in run.get('timelines', []):
        out += [t['title']] + [lane['name'] for lane in t.get('lanes', [])]
    return [x for x in out if x and re.search('[A-Za-z]{2,}', x)]

def main():
    names = sys.argv[1:] or sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(ROOT, 'course-notes/runs/*.json')))
    common = load('cudalab')
    missing = 0
    for name in names:
        entries = load(name) + common
        run = json.load(open(os.path.join(ROOT, 'course-notes', 'runs', name + '.json'), encoding='utf-8'))
        seen = set()
        for s in strings_of(run):
            if s in seen:
                continue
            seen.add(s)
            if translate(s, entries) is None:
                print(f'{name}: {s}')
                missing += 1
    print(f'zh-catalogue: {missing} strings without a translation', file=sys.stderr)
    sys.exit(1 if missing else 0)

if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Run-to-run spread of every lesson's figures over several `cudalab all --json` files:
(max - min) / median of the runs' medians, and whether a run already printed the figure as noisy.
Headline figures (a report's headline_metrics, else the metrics its expect checks depend on) are
marked '*': issue 15 holds them to a 5% spread or a noisy mark.
   tools/spread.py all1.json all2.json all3.json"""
import json
import statistics
import sys


def headline_keys(report):
    keys = report.get("headline_metrics") or []
    if not keys:
        for check in report.get("checks", []):
            if check.get("kind") == "expect":
                keys += [k for k in check.get("depends_on", []) if k not in keys]
    return set(keys)


runs = [json.load(open(path)) for path in sys.argv[1:]]
by_key = {}
for run in runs:
    for report in run:
        lesson = f'{report["lesson"]["number"]:02d}'
        headlines = headline_keys(report)
        for section in report["sections"]:
            for m in section["metrics"]:
                if "median" not in m:
                    continue
                entry = by_key.setdefault((lesson, m["key"]), {"label": m["label"], "unit": m["unit"], "medians": [],
                                                               "noisy": False, "headline": False})
                entry["medians"].append(m["median"])
                entry["noisy"] = entry["noisy"] or bool(m.get("noisy"))
                entry["headline"] = entry["headline"] or m["key"] in headlines
counts = {True: [0, 0, 0], False: [0, 0, 0]}
for (lesson, key), e in sorted(by_key.items()):
    if len(e["medians"]) < 2:
        continue
    med = statistics.median(e["medians"])
    spread = (max(e["medians"]) - min(e["medians"])) / abs(med) if med else 0.0
    verdict = "ok" if spread <= 0.05 else ("noisy (flagged)" if e["noisy"] else "SPREAD")
    counts[e["headline"]][["ok", "noisy (flagged)", "SPREAD"].index(verdict)] += 1
    mark = "*" if e["headline"] else " "
    print(f"{mark}{lesson} {key:45.45s} {med:12.4g} {e['unit']:5s} spread {100 * spread:5.1f}%  {verdict}")
for headline, name in ((True, "headline figures"), (False, "other figures")):
    ok, flagged, unflagged = counts[headline]
    print(f"spread of {name}: {ok} under 5%, {flagged} above but flagged noisy, {unflagged} above and not flagged")

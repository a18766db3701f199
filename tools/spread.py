#!/usr/bin/env python3
"""Run-to-run spread of every lesson's headline figures over several `cudalab all --json` files:
(max - min) / median of the runs' medians, and whether a run already printed the figure as noisy.
   tools/spread.py all1.json all2.json all3.json"""
import json
import statistics
import sys

runs = [json.load(open(path)) for path in sys.argv[1:]]
by_key = {}
for run in runs:
    for report in run:
        lesson = f'{report["lesson"]["number"]:02d}'
        for section in report["sections"]:
            for m in section["metrics"]:
                if "median" not in m:
                    continue
                entry = by_key.setdefault((lesson, m["key"]), {"label": m["label"], "unit": m["unit"], "medians": [], "noisy": False})
                entry["medians"].append(m["median"])
                entry["noisy"] = entry["noisy"] or bool(m.get("noisy"))
steady = noisy_flagged = unflagged = 0
for (lesson, key), e in sorted(by_key.items()):
    if len(e["medians"]) < 2:
        continue
    med = statistics.median(e["medians"])
    spread = (max(e["medians"]) - min(e["medians"])) / abs(med) if med else 0.0
    verdict = "ok" if spread <= 0.05 else ("noisy (flagged)" if e["noisy"] else "SPREAD")
    steady += verdict == "ok"
    noisy_flagged += verdict == "noisy (flagged)"
    unflagged += verdict == "SPREAD"
    print(f"{lesson} {key:45.45s} {med:12.4g} {e['unit']:5s} spread {100 * spread:5.1f}%  {verdict}")
print(f"spread: {steady} figures under 5%, {noisy_flagged} above but flagged noisy, {unflagged} above and not flagged")

#!/usr/bin/env python3
"""Hostile input for cudalab: generate well over a thousand cases from the binary itself and
from the reference runs, run them in parallel, and hold each to the contract (contract.py).

    tests/hostile/run.py build/cudalab [--runs course-notes/runs] [--jobs N] [--full]

Categories (a generator each):
  baseline      each command run validly: the exit code an accepted value must keep
  flag value    every flag and positional of every command × empty, negative, zero, huge, NaN,
                inf, 2^64, control characters, ESC, newline, 100k characters, Unicode
  special file  every path flag × FIFO, /dev/zero, /dev/null, a directory, a socket, a dangling
                symlink, a path in a missing folder, a read-only (or unreadable) file
  run mutant    every reference run truncated, byte-flipped, each field swapped or removed,
                nested deep, long strings, huge numbers → show, compare, grade
  class folder  grade of the ten reference runs with the crash and hang files among them
  preset        TOML presets: every key × TOML types and hostile strings; size, depth, BOM, CRLF
  mode          commands without what they need; `--live` alone; `all --print-config`

Prints the counts by category and the broken cases grouped by what broke, and exits 1 when
any case broke the contract. There is no list of known failures: a case that breaks is shown.
"""

import argparse
import concurrent.futures
import json
import os
import resource
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ in it
sys.path.insert(0, str(Path(__file__).resolve().parent))

from contract import broken  # noqa: E402
from cudalab_cli import read_commands  # noqa: E402
from gen_flags import Invocations, all_cases  # noqa: E402
from gen_modes import baseline_cases, mode_cases  # noqa: E402
from gen_presets import preset_cases  # noqa: E402
from gen_runs import class_folder_case, mutate_all, run_cases  # noqa: E402
from runner import nobody_prefix, run_case  # noqa: E402

CATEGORIES = ["baseline", "flag value", "special file", "run mutant", "class folder", "preset", "mode"]
KINDS = ["hang", "signal", "exit code", "stderr lines", "unprintable", "library text", "silent error",
         "flag not named", "missing rows", "check"]
SLOW_S = 1.0  # the goal per case; over it is listed, not failed (see contract.py)


def arguments():
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("--runs", default=str(here.parent.parent / "course-notes" / "runs"), help="reference runs")
    p.add_argument("--jobs", type=int, default=(os.cpu_count() or 2) + 2,
                   help="cases at once (more than the CPUs: a case waiting on its limit uses none)")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds a case may take")
    p.add_argument("--full", action="store_true", help="compare every mutant in both orders")
    p.add_argument("--only", choices=CATEGORIES, action="append", help="run only these categories")
    p.add_argument("--examples", type=int, default=3, help="broken cases shown per group")
    p.add_argument("--log", help="write every broken case to this file, one JSON object a line")
    p.add_argument("--no-data-limit", action="store_true",
                   help="leave RLIMIT_DATA alone: a sanitizer's shadow memory counts as data (tools/asan-check.sh)")
    return p.parse_args()


def run_all(binary, cases, root, args, nobody):
    """Runs the cases on thread pools (each case is a process; threads only wait). The busy ones
    (a grade of a folder of large runs) go first, one per CPU: the time limit is wall-clock, and a
    case that shares its CPU with others would be timed on their work too. Then the rest, more
    at once than the CPUs (a case waiting on its limit uses none), the heavy ones first so a slow
    tail does not hold up the end."""
    results = []

    def pool_of(workers, batch):
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_case, binary, c, root, args.timeout, nobody): c for c in batch}
            for future in concurrent.futures.as_completed(futures):
                case = futures[future]
                result = future.result()
                results.append((case, result, broken(case, result)))

    pool_of(min(args.jobs, os.cpu_count() or 1), [c for c in cases if c.busy])
    pool_of(args.jobs, sorted((c for c in cases if not c.busy), key=lambda c: not c.heavy))
    return results


def generate(commands, inv, args, root, nobody):
    wanted = set(args.only or CATEGORIES)
    cases = []
    if "flag value" in wanted or "special file" in wanted:
        cases += [c for c in all_cases(commands, inv, root_user=os.geteuid() == 0) if c.category in wanted]
    if "run mutant" in wanted or "class folder" in wanted:
        sets = mutate_all(args.runs)
        if "run mutant" in wanted:
            cases += list(run_cases(sets, root / "mutants", full=args.full))
        if "class folder" in wanted:
            cases.append(class_folder_case(sets, args.runs, root / "mutants"))
    if "preset" in wanted:
        cases += list(preset_cases(commands))
    if "mode" in wanted:
        cases += list(mode_cases(commands, inv))
    skipped = [c for c in cases if c.as_nobody and nobody is None]
    return [c for c in cases if not (c.as_nobody and nobody is None)], skipped


def report(results, skipped, elapsed, args):
    broken_cases = [(c, r, p) for c, r, p in results if p]
    print(f"hostile inputs for {args.binary}")
    print(f"{len(results)} cases in {elapsed:.1f} s on {args.jobs} workers ({os.cpu_count()} CPUs): "
          f"{len(results) - len(broken_cases)} kept the contract, {len(broken_cases)} broke it")
    if skipped:
        print(f"skipped {len(skipped)} read-only cases: running as root, and setpriv cannot run the binary as nobody")
    print()
    print(f"{'category':<14}{'cases':>7}{'broken':>8}  " + "  ".join(k for k in KINDS))
    for category in CATEGORIES:
        rows = [x for x in results if x[0].category == category]
        if not rows:
            continue
        kinds = Counter(kind for _, _, problems in rows for kind in {k for k, _ in problems})
        print(f"{category:<14}{len(rows):>7}{sum(1 for x in rows if x[2]):>8}  " +
              "  ".join(f"{kinds.get(k, 0) or '·':>{len(k)}}" for k in KINDS))
    slow = sorted(((r.elapsed, c) for c, r, p in results if r.elapsed > SLOW_S and not p), key=lambda x: -x[0])
    if slow:
        print(f"\nslow: {len(slow)} within the {args.timeout:g} s limit but over the issue's {SLOW_S:g} s goal")
        for seconds, case in slow[:args.examples * 2]:
            print(f"  {seconds:5.2f} s  {case.label}")
    if broken_cases:
        print_broken(broken_cases, args.examples)
    return broken_cases


def print_broken(broken_cases, examples):
    """Grouped by what broke first, then by the kind of input (family): the flags or commands it
    hit on one line, then a few examples with what broke."""
    groups = defaultdict(lambda: defaultdict(list))
    for case, result, problems in sorted(broken_cases, key=lambda x: x[0].label):
        kind, detail = problems[0]
        groups[kind][case.family].append((case, detail, problems[1:]))
    print(f"\nbroken, by what broke first and by input ({examples} examples a group):")
    for kind in KINDS:
        if kind not in groups:
            continue
        families = groups[kind]
        print(f"\n{kind}: {sum(len(v) for v in families.values())} cases")
        for family, items in sorted(families.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            where = list(dict.fromkeys(c.where for c, _, _ in items if c.where))
            shown_where = ", ".join(where[:8]) + (f", … (+{len(where) - 8})" if len(where) > 8 else "")
            print(f"  {family} ({len(items)}){': ' + shown_where if where else ''}")
            for case, detail, more in items[:examples]:
                also = f"  [+{', '.join(k for k, _ in more)}]" if more else ""
                print(f"    {case.label}\n      → {detail}{also}")


def main():
    args = arguments()
    binary = str(Path(args.binary).resolve())
    # A runaway case (a read of /dev/zero) must not take the machine down with it.
    if not args.no_data_limit:
        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        limit = 4 << 30 if hard == resource.RLIM_INFINITY else min(4 << 30, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    commands = read_commands(binary)
    inv = Invocations(commands, Path(args.runs).resolve())
    nobody = nobody_prefix(binary)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cudalab-hostile-") as tmp:
        root = Path(tmp)
        os.chmod(root, 0o755)
        baselines = list(baseline_cases(commands, inv))
        results = run_all(binary, [c for _, c in baselines], root, args, nobody)
        for name, case in baselines:
            inv.baseline[name] = next(r.code for c, r, _ in results if c is case)
        cases, skipped = generate(commands, inv, args, root, nobody)
        results += run_all(binary, cases, root, args, nobody)
    broken_cases = report(results, skipped, time.monotonic() - start, args)
    if args.log:
        with open(args.log, "w") as log:
            for case, result, problems in broken_cases:
                argv = [a if len(a) < 200 else a[:40] + f"…({len(a)} chars)" for a in case.argv]
                log.write(json.dumps({"category": case.category, "family": case.family, "label": case.label,
                                      "argv": argv, "exit": result.code, "problems": problems},
                                     ensure_ascii=True) + "\n")
    return 1 if broken_cases else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A GPU test that reads what the run wrote, not only its exit code.

    tests/gpu_check.py CUDALAB ARGS...       run `CUDALAB ARGS...`, then check its outputs
    tests/gpu_check.py CUDALAB --portable NN [FLAGS...]
                                             the live run's --portable output, with the flags
                                             its reference run was recorded with, is byte for
                                             byte the one `show NN --portable` renders (the same
                                             lesson, params and verify results on every GPU)

What is checked, by the flags given:
- always: exit 0, and in text form at least one "✓ verify" line and no "✗ verify" (under
  --stable: "verify KEY pass" lines, none FAIL);
- --format json: stdout is one run, every verify check passed, every metric has samples or a value;
- --trace FILE: FILE is Chrome trace JSON with at least one complete ("X") event with a duration;
- --dot FILE: FILE is a Graphviz digraph with at least one edge;
- --stable: one "environment clean|disturbed" line;
- --timeline: a drawn lane ("│") and its legend.
Exit 77 (no GPU) passes through, so CTest reports the test as skipped.
"""

import json
import os
import re
import subprocess
import sys

WAIVED = 77


def fail(message):
    print(f"gpu_check: {message}")
    sys.exit(1)


def run(argv, extra_env=None):
    env = dict(os.environ, NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8")  # the English labels
    env.update(extra_env or {})
    done = subprocess.run(argv, capture_output=True, env=env)
    if done.returncode == WAIVED:
        print(done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace"))
        sys.exit(WAIVED)
    return done


def value_after(args, flag):
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


def check_json_run(text):
    try:
        run_json = json.loads(text)
    except ValueError as e:
        fail(f"--format json printed no JSON run: {e}")
    checks = [c for c in run_json.get("checks", []) if c.get("kind") == "verify"]
    if not checks:
        fail("the JSON run holds no verify check")
    failed = [c.get("key") for c in checks if not c.get("passed")]
    if failed:
        fail(f"verify checks failed in the JSON run: {failed}")
    for section in run_json.get("sections", []):
        for metric in section.get("metrics", []):
            if not metric.get("samples") and metric.get("median") is None and metric.get("value") is None:
                fail(f"metric {metric.get('key')} has neither samples nor a value")


def check_trace(path):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"--trace {path}: not readable as JSON: {e}")
    events = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and e.get("dur", 0) > 0]
    if not events:
        fail(f"--trace {path}: no complete event with a duration")


def check_dot(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        fail(f"--dot {path}: {e}")
    if not text.lstrip().startswith("digraph") or "->" not in text:
        fail(f"--dot {path}: not a Graphviz digraph with edges")


def check_text(args, out):
    if "--stable" in args:  # "verify KEY pass" lines, one "environment ..." line
        if not re.search(r"^verify \S+ pass$", out, re.M):
            fail("--stable printed no passed verify check")
        if re.search(r"^verify \S+ FAIL$", out, re.M):
            fail("a verify check failed:\n" + "\n".join(l for l in out.splitlines() if l.startswith("verify ")))
        if not re.search(r"^environment (clean|disturbed)$", out, re.M):
            fail("--stable printed no environment line")
        return
    if "✓ verify" not in out:
        fail("no passed verify check in the output")
    if "✗ verify" in out:
        fail("a verify check failed:\n" + "\n".join(l for l in out.splitlines() if "✗ verify" in l))
    if "--timeline" in args and ("│" not in out or "legend" not in out):
        fail("--timeline drew no lane with its legend")


def reference_gpu_count(cudalab, lesson):
    shown = run([cudalab, "show", lesson, "--format", "json"])
    try:
        return len(json.loads(shown.stdout).get("devices", []))
    except ValueError:
        fail(f"`show {lesson} --format json` printed no JSON run")


def portable(cudalab, lesson, flags):
    # The live run sees as many GPUs as the reference run's machine had: lesson 01 on two GPUs
    # verifies a kernel on each, one line more than the one-GPU reference.
    extra = {}
    count = reference_gpu_count(cudalab, lesson)
    if count > 0 and "CUDA_VISIBLE_DEVICES" not in os.environ:
        extra["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(count))
    live = run([cudalab, lesson, *flags, "--portable"], extra)
    if live.returncode != 0:
        fail(f"{lesson} --portable exited {live.returncode}: {live.stderr.decode(errors='replace')}")
    shown = run([cudalab, "show", lesson, "--portable"])
    if live.stdout != shown.stdout:
        fail(f"{lesson} --portable differs from `show {lesson} --portable`:\n--- live\n"
             f"{live.stdout.decode(errors='replace')}\n--- reference\n{shown.stdout.decode(errors='replace')}")


def main():
    cudalab, args = sys.argv[1], sys.argv[2:]
    if args and args[0] == "--portable":  # --portable NN [the flags its reference run was recorded with]
        portable(cudalab, args[1], args[2:])
        return
    done = run([cudalab, *args])
    out = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        fail(f"exit {done.returncode}:\n{out[-2000:]}{done.stderr.decode(errors='replace')[-2000:]}")
    if value_after(args, "--format") == "json":
        check_json_run(out)
    else:
        check_text(args, out)
    if value_after(args, "--trace"):
        check_trace(value_after(args, "--trace"))
    if value_after(args, "--dot"):
        check_dot(value_after(args, "--dot"))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""SIGTERM and SIGINT end a wait within 0.2 s, with 143 and 130 (issue 24, "Signals").

    tests/hostile/signals.py build/cudalab

The waits that can be reached without a GPU:
- the terminal: `show NN --pause` waits for Enter, `show NN --predict` for an answer. Each must
  really wait (stdin is a pseudo-terminal that nobody types into): a command that does not is a failure, not a pass, so this test cannot pass vacuously.
- a path: every path flag and path positional given a FIFO (nobody opens its other end) or
  /dev/zero. A command that refuses it at once passes (nothing to wait for); one that waits
  must end on SIGTERM.
A case is signalled only once the process is asleep with the signal's handler installed
(/proc/PID/status), so a slow start is not mistaken for an ignored signal.
"""

import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ in it
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cudalab_cli import quiet_environment, read_commands  # noqa: E402

BOUND_S = 0.2      # the bound, from the signal to the exit
ASLEEP_S = 0.3     # asleep this long in a row: it is waiting, not starting up
BUSY_S = 1.0       # running this long with its handler installed: it is stuck, not starting up
START_LIMIT_S = 10  # a machine under load may take this long to start the binary


def caught_signals(pid):
    """The signals a handler is installed for, from /proc (SigCgt)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            mask = int(line.split()[1], 16)
            return {s for s in signal.Signals if mask & (1 << (s - 1))}
    return set()


def asleep(pid):
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "S"


def wait_exit(process, timeout):
    """The exit code, or None if the process is still running after `timeout` seconds
    (a pidfd, so the time is measured to the millisecond, not to a polling interval)."""
    fd = os.pidfd_open(process.pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return process.wait() if ready else None
    finally:
        os.close(fd)


def waiting(process, sig):
    """True once the process waits with a handler for `sig` installed: asleep for ASLEEP_S, or
    busy for BUSY_S (a read of /dev/zero never sleeps); False if it ended first."""
    deadline = time.monotonic() + START_LIMIT_S
    asleep_since = handled_since = None
    while time.monotonic() < deadline:
        if wait_exit(process, 0.02) is not None:
            return False
        try:
            handled = sig in caught_signals(process.pid)
            sleeping = handled and asleep(process.pid)
        except (FileNotFoundError, ProcessLookupError):
            return False
        now = time.monotonic()
        handled_since = (handled_since or now) if handled else None
        asleep_since = (asleep_since or now) if sleeping else None
        if (asleep_since and now - asleep_since >= ASLEEP_S) or (handled_since and now - handled_since >= BUSY_S):
            return True
    return True  # never settled: signal it anyway, and let the answer tell


def signal_case(binary, argv, sig, folder, terminal):
    """(whether it waited, what went wrong or None)."""
    master = slave = None
    if terminal:
        master, slave = pty.openpty()
    with open(folder / "out", "wb") as out, open(folder / "err", "wb") as err:
        process = subprocess.Popen([binary, *argv], cwd=folder, stdin=slave if terminal else subprocess.DEVNULL,
                                   stdout=out, stderr=err, env=quiet_environment(str(folder)), start_new_session=True)
    if slave is not None:
        os.close(slave)
    try:
        if not waiting(process, sig):
            code = process.returncode  # what it answered is the hostile suite's business; a crash is not
            return False, None if code >= 0 else f"did not wait, and died of {signal.Signals(-code).name}"
        sent = time.monotonic()
        os.kill(process.pid, sig)
        code = wait_exit(process, 2.0)
        took = time.monotonic() - sent
        if code is None:
            return True, f"still running 2 s after {sig.name}"
        if code != 128 + sig:
            return True, f"exit {code} after {sig.name}, expected {128 + sig}"
        if took > BOUND_S:
            return True, f"took {took * 1000:.0f} ms after {sig.name} (bound {BOUND_S * 1000:.0f} ms)"
        return True, None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if master is not None:
            os.close(master)


def terminal_waits(commands):
    """(argv, must_wait) for each wait on the terminal the binary offers."""
    lessons = [c for c in commands if c.lesson]
    by_name = {c.name: c for c in commands}
    cases = []
    show = by_name.get("show")
    if show and any(f.name == "--pause" for f in show.flags):
        cases.append(["show", lessons[0].lesson, "--pause"])
    # `live NN` prompts only after a first run on a GPU: without one it exits 77 at once (its
    # prompt's signals are tested in the live unit tests, with a fake lesson).
    for lesson in lessons:
        if any(f.name == "--predict" for f in lesson.flags):
            # Only lessons with questions take --predict; without a GPU they say so before asking.
            cases.append([lesson.lesson, "--predict"])
            # `show NN --predict` asks them with no GPU, before it shows the recorded run.
            if show and any(f.name == "--predict" for f in show.flags):
                cases.append(["show", lesson.lesson, "--predict"])
    return cases


def path_waits(commands, folder):
    """(key, argv): every path flag and positional given a FIFO and /dev/zero. A flag that many
    commands share (--json) has one key: once one command waited on it, the rest are skipped."""
    fifo = str(folder / "fifo.json")
    lesson = next(c.lesson for c in commands if c.lesson)
    for command in commands:
        base = [command.word] if command.name else []
        words = [lesson if p.kind != "dir" else str(folder) for p in command.positionals if p.required
                 for _ in range(p.count)]
        for flag in command.flags:
            if flag.kind in ("file", "dir"):
                needs = [flag.needs] if flag.needs else []
                for path in (fifo, "/dev/zero"):
                    yield (flag.name, path), base + words + needs + [flag.name, path] + ([] if command.name else [lesson])
        if any(p.kind == "dir" for p in command.positionals if p.required):
            yield (command.name, "folder"), base + words  # the folder holds the FIFO: grade must not wait on it
        for index, p in enumerate(p for p in command.positionals if p.required and p.kind in ("run", "dir")):
            for path in (fifo, "/dev/zero"):
                changed = list(words)
                changed[index] = path
                yield (command.name, index, path), base + changed


def main():
    binary = str(Path(sys.argv[1]).resolve())
    commands = read_commands(binary)
    failures, tried, asked = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="cudalab-signals-") as tmp:
        folder = Path(tmp)
        os.mkfifo(folder / "fifo.json")
        for argv in terminal_waits(commands):
            predict = "--predict" in argv
            for sig in (signal.SIGTERM,) if predict else (signal.SIGTERM, signal.SIGINT):
                tried += 1
                waited, problem = signal_case(binary, argv, sig, folder, terminal=True)
                asked += predict and waited
                # --predict waits only where it can ask: `show NN --predict`, or a lesson on a GPU.
                if not waited and not predict:
                    problem = problem or "did not wait on the terminal: nothing was interrupted"
                if problem:
                    failures.append((argv, sig, problem))
        if asked == 0:
            failures.append((["NN", "--predict"], signal.SIGTERM, "no lesson waited for an answer on the terminal"))
        waited_on = set()
        for key, argv in path_waits(commands, folder):
            if key in waited_on:
                continue
            tried += 1
            waited, problem = signal_case(binary, argv, signal.SIGTERM, folder, terminal=False)
            if waited:
                waited_on.add(key)
            if problem:
                failures.append((argv, signal.SIGTERM, problem))
    print(f"signals: {tried} cases, {len(failures)} broken; --predict waited for an answer in {asked} lessons")
    for argv, sig, problem in failures:
        shown = " ".join(a.replace(str(Path(tempfile.gettempdir())), "$TMP") for a in argv)
        print(f"  cudalab {shown}  [{sig.name}]\n    → {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

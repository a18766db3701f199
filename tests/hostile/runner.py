"""Runs cases: each in a folder of its own, as its own session, under a time limit."""

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from case import CASE_DIR
from cudalab_cli import quiet_environment

READ_LIMIT = 8 << 20  # what is read back of stdout/stderr; more only makes a report longer


@dataclass
class Result:
    code: int          # exit code, or -N for signal N
    timed_out: bool
    ended_by: str      # after a timeout: "SIGTERM" when that ended it, else "SIGKILL"
    elapsed: float
    out: bytes
    err: bytes
    limit: float


def nobody_prefix(binary):
    """Root ignores file modes, so a read-only file is not read-only to it: read-only cases run
    as nobody. None when that is not possible here (not root: no need; no setpriv)."""
    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    if shutil.which("setpriv") is None:
        return None
    probe = subprocess.run(prefix + [binary, "--version"], capture_output=True, stdin=subprocess.DEVNULL,
                           timeout=10, check=False)
    return prefix if probe.returncode == 0 else None


def stop(process):
    """A case past its limit gets SIGTERM, as `timeout` would send, then SIGKILL."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=0.2)
        return "SIGTERM"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return "SIGKILL"
    except ProcessLookupError:
        process.wait()
        return "SIGTERM"


def read_capped(path):
    with open(path, "rb") as f:
        return f.read(READ_LIMIT)


def remove(folder):
    """Cases make folders without permissions (mode 000): open them up before deleting."""
    for parent, dirs, _ in os.walk(folder):
        for d in dirs:
            path = os.path.join(parent, d)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    shutil.rmtree(folder, ignore_errors=True)


def run_case(binary, case, root, limit, nobody):
    case_dir = Path(tempfile.mkdtemp(prefix="case-", dir=root))
    os.chmod(case_dir, 0o755)  # nobody must reach the files it is refused
    try:
        if case.setup:
            case.setup(case_dir)
        argv = [binary, *(a.replace(CASE_DIR, str(case_dir)) for a in case.argv)]
        if case.as_nobody:
            argv = nobody + argv
        out_path, err_path = root / f"{case_dir.name}.out", root / f"{case_dir.name}.err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            process = subprocess.Popen(argv, cwd=case_dir, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                       env=quiet_environment(str(case_dir)), start_new_session=True)
            try:
                process.wait(timeout=limit)
                timed_out, ended_by = False, None
            except subprocess.TimeoutExpired:
                timed_out, ended_by = True, stop(process)
            elapsed = time.monotonic() - start
        result = Result(process.returncode, timed_out, ended_by, elapsed, read_capped(out_path), read_capped(err_path),
                        limit)
        os.unlink(out_path)
        os.unlink(err_path)
        return result
    finally:
        remove(case_dir)

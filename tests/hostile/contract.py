"""The contract every hostile case must keep, in one function: `broken(case, result)`.

From the project's charter: bad input gets one clear printable line and a documented exit
code, never a crash, a hang or a library's text. In detail:
- it ends by itself within the time limit (2 s; the issue's goal is 1 s, which the report
  lists separately: on two loaded cores a parallel run is slower than one alone);
- it exits, not by a signal, with a code the case allows (2 usage; 1 a modified or failed run;
  77 waived, for a lesson that got past its flags on a machine without a GPU; 0 only where the
  input is valid);
- stderr is at most one line, and a refusal (2) or a waiver (77) is not silent;
- a refusal names what it refused (the flag, or the preset file);
- every byte it prints is printable: no control character or escape sequence in stderr, none
  but newline and tab in stdout (colour is off: NO_COLOR=1 and no terminal), valid UTF-8;
- no library's text: an exception's what() is not a message for a student.
"""

import signal
import unicodedata

LIBRARY_TEXT = ("json.exception", "terminate called", "what():", "std::", "CLI11")
# The course notes may quote std:: names in a rendered run; an exception's text may not appear.
STDOUT_LIBRARY_TEXT = ("json.exception", "terminate called", "what():")
SILENT_CODES = (2, 77)
ROW_NAME_CHARS = 15  # grade's first column shortens long file names; this much always shows


def escaped(text, limit=90):
    text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[:limit] + f"…(+{len(text) - limit})"


def control_characters(text, allowed=""):
    """C0, DEL and C1 characters (a terminal acts on them) other than those allowed."""
    return sorted({c for c in text if unicodedata.category(c) == "Cc" and c not in allowed})


def decoded(data, stream):
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        return data.decode("utf-8", errors="replace"), [("unprintable", f"{stream} is not UTF-8 (byte {e.start})")]


def broken(case, result):
    """What broke, as (kind, detail) pairs; empty when the case kept the contract."""
    if result.timed_out:
        how = "ended on SIGTERM" if result.ended_by == "SIGTERM" else "ignored SIGTERM for 0.2 s, killed"
        return [("hang", f"still running after {result.limit:g} s; {how}")]
    problems = []
    if result.code < 0:
        problems.append(("signal", signal.Signals(-result.code).name))
    elif result.code not in case.allowed:
        problems.append(("exit code", f"exit {result.code}, expected {'/'.join(map(str, sorted(case.allowed)))}"))
    err, bad = decoded(result.err, "stderr")
    out, bad_out = decoded(result.out, "stdout")
    problems += bad + bad_out
    message = err[:-1] if err.endswith("\n") else err
    if "\n" in message:
        lines = message.split("\n")
        problems.append(("stderr lines", f"{len(lines)} lines: {escaped(lines[0], 60)} ⏎ {escaped(lines[1], 40)}"))
    if control_characters(message, allowed="\n"):
        problems.append(("unprintable", f"stderr has {control_characters(message, allowed=chr(10))[:4]}: {escaped(message)}"))
    if control_characters(out, allowed="\n\t"):
        problems.append(("unprintable", f"stdout has {control_characters(out, allowed=chr(10) + chr(9))[:4]}"))
    for text, needles, stream in ((err, LIBRARY_TEXT, "stderr"), (out, STDOUT_LIBRARY_TEXT, "stdout")):
        found = [n for n in needles if n in text]
        if found:
            problems.append(("library text", f"{stream} has '{found[0]}': {escaped(text[max(0, text.find(found[0]) - 40):], 100)}"))
    if result.code in SILENT_CODES and not message.strip():
        problems.append(("silent error", f"exit {result.code} with nothing on stderr"))
    if result.code == 2 and case.names and not any(n in message for n in case.names):
        problems.append(("flag not named", f"names none of {', '.join(case.names)}: {escaped(message)}"))
    missing = [r for r in case.rows if r[:ROW_NAME_CHARS] not in out]
    if missing and result.code >= 0:
        problems.append(("missing rows", f"no row for {len(missing)} of {len(case.rows)}: {', '.join(missing[:4])}"))
    for description, holds in case.checks:
        if not holds(out):
            problems.append(("check", description))
    return problems

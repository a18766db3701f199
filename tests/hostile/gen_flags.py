"""Cases from the command line: every flag and positional × hostile values, and every path
flag × special files. The flags come from the binary's own --help (cudalab_cli)."""

import os
import socket

from case import Case, in_case_dir
from cudalab_cli import choices_of

USAGE = 2

# The values every flag is tried with. Each is a classic way a parser goes wrong: an empty
# string, a sign, an overflow, text the terminal interprets, a line break in a one-line
# message, a value too long to echo, and characters outside ASCII (a full-width digit, a
# right-to-left override, an emoji).
VALUES = [
    ("empty", ""),
    ("negative", "-1"),
    ("zero", "0"),
    ("huge", "9" * 30),
    ("NaN", "nan"),
    ("inf", "inf"),
    ("2^64", str(2 ** 64)),
    ("control characters", "a\x01\x02\x7fb"),
    ("ESC sequence", "\x1b[31mred\x1b[0m"),
    ("newline", "one\ntwo"),
    ("100k characters", "7" * 100_000),
    ("Unicode", "８ストリーム\u202e🚀"),
]
# A flag that many commands share (--json, --lang) is one piece of code: it gets every value
# where it first appears, and elsewhere the four that catch an echo or a limit gone wrong.
SMOKE = {"empty", "ESC sequence", "newline", "100k characters"}


def may_be_valid(flag, label, value):
    """Whether a hostile value could be a legitimate setting of this flag. Where it could, the
    run must behave as it does without the flag (the command's baseline exit) or refuse it."""
    kind = flag.kind
    if kind in ("int", "size", "percent", "number"):
        if label not in ("zero", "negative"):
            return False
        if flag.range:
            return flag.range[0] <= int(value) <= flag.range[1]
        return not (kind == "size" and label == "negative")
    if kind in ("file", "dir") and flag.writes:
        # Any other name is a name a file could have; an empty one or a 100k one is not.
        return label not in ("empty", "100k characters")
    return False  # choices, lessons, files to read: no hostile value names one


class Invocations:
    """How each command is run with valid arguments, and what it answers then (its baseline)."""

    def __init__(self, commands, runs_dir):
        self.lesson = next(c.lesson for c in commands if c.lesson)
        self.runs_dir = str(runs_dir)
        self.baseline = {}  # command name -> exit code of base(command), filled by the runner

    def positionals(self, command):
        words = []
        for p in command.positionals:
            # grade's DIR may be left out for the class's drop folder; here it names the folder
            if p.required or p.kind == "dir":
                words += [self.valid_positional(p)] * p.count
        return words

    def valid_positional(self, p):
        if p.kind == "dir":
            return self.runs_dir  # the reference runs: a class of copies of the references, graded and failed
        if p.kind == "choice":
            return choices_of(p.token.replace("REQUIRED", "").strip())[0]
        return self.lesson  # a run (the lesson's reference run), a lesson, a help topic

    def base(self, command, extra=()):
        """argv that runs `command` validly, with `extra` flags added."""
        if command.name == "":  # global options go before a lesson
            return [*extra, self.lesson]
        # `live 03`: its own flags come first. `exercise` takes an exercise, not any lesson: `list`,
        # which reads and writes nothing (a real exercise would write its starter here).
        lesson = (["list"] if command.name == "exercise" else [self.lesson]) if command.takes_lesson else []
        return [command.word, *self.positionals(command), *extra, *lesson]

    def allowed_if_valid(self, command):
        return frozenset({USAGE, self.baseline.get(command.name, 0)})


def flag_value_cases(commands, inv):
    seen = set()
    for command in commands:
        # submit hands a run into a drop folder, which this suite does not make: every valid flag
        # would end in "no drop folder". Its flags (--lang, --color, --config) are the other
        # commands' too; its RUN is tried in the positional and special-file cases.
        if command.name == "submit":
            continue
        for flag in command.flags:
            if flag.kind == "switch":
                yield switch_case(command, flag, inv)
                continue
            first = (flag.name, flag.token) not in seen
            seen.add((flag.name, flag.token))
            for label, value in VALUES:
                if first or label in SMOKE:
                    yield value_case(command, flag, label, value, inv)


def value_case(command, flag, label, value, inv):
    extra = ([flag.needs] if flag.needs else []) + [flag.name, value]
    allowed = inv.allowed_if_valid(command) if may_be_valid(flag, label, value) else frozenset({USAGE})
    return Case("flag value", f"{label} to {flag.kind} flags",
                f"{' '.join(inv.base(command))} {flag.name} <{label}>", inv.base(command, extra), allowed,
                where=f"{command.word or 'cudalab'} {flag.name}", names=tuple(n for n in (flag.name, flag.needs) if n))


def switch_case(command, flag, inv):
    """A switch takes no value: `--stable=<ESC>` must be refused, and not echoed raw."""
    value = "\x1b[31m\nx"
    return Case("flag value", "a value given to a switch", f"{' '.join(inv.base(command))} {flag.name}=<ESC + newline>",
                inv.base(command, [f"{flag.name}={value}"]), frozenset({USAGE}),
                where=f"{command.word or 'cudalab'} {flag.name}", names=(flag.name,))


def positional_cases(commands, inv):
    """Every positional × every value: `show <v>`, `compare <v> 03`, `compare 03 <v>`, `help <v>`."""
    for command in commands:
        offset = 0
        for p in command.positionals:
            filled = p.required or p.kind == "dir"  # grade's DIR is optional, and filled in (positionals())
            slots = list(range(offset, offset + p.count)) if filled else [None]  # optional: appended
            for slot in slots:
                for label, value in VALUES:
                    words = inv.positionals(command)
                    if slot is None:
                        words.append(value)
                    else:
                        words[slot] = value
                    where = p.name if p.count == 1 else f"{p.name}[{slot - offset}]"
                    # An empty optional positional may be read as none given (`help ''`: the help).
                    allowed = {USAGE} | ({inv.baseline.get(command.name, 0)} if slot is None and label == "empty" else set())
                    yield Case("flag value", f"{label} as a positional", f"{command.word} {where}=<{label}>",
                               [command.word, *words], frozenset(allowed), where=f"{command.word} {where}")
            if filled:
                offset += p.count


# ---------------------------------------------------------------------------------------------
# Special files: each is a way a path can make an open block, a read never end, or a write go
# somewhere it must not. None of them is ever opened by the suite, so nothing writes to the FIFO.

def _fifo(d):
    os.mkfifo(d / "fifo.json")


def _socket(d):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "sock.json"))
    s.close()


def _dangling(d):
    os.symlink("no/such/target.json", d / "dangling.json")


def _file(d, name, mode, text="{}"):
    (d / name).write_text(text)
    os.chmod(d / name, mode)


def _dir(d, name, mode=0o755):
    os.mkdir(d / name, mode)
    os.chmod(d / name, mode)


def class_of_special_files(d):
    """A folder of *.json entries that are not runs: grade must give each a row, and wait on none."""
    folder = d / "folder.json"
    folder.mkdir()
    _fifo(folder)
    _socket(folder)
    _dangling(folder)
    os.symlink("/dev/zero", folder / "zero.json")
    os.symlink("/dev/null", folder / "null.json")
    (folder / "sub.json").mkdir()
    _file(folder, "unreadable.json", 0o000)
    return folder


CLASS_ENTRIES = ("fifo.json", "sock.json", "dangling.json", "zero.json", "null.json", "sub.json", "unreadable.json")


def special_files(path_kind):
    """(label, setup, path) for each special file; path_kind is in-file, out-file, in-dir, out-dir."""
    read_only = {
        "in-file": (lambda d: _file(d, "unreadable.json", 0o000), "unreadable.json"),
        "out-file": (lambda d: _file(d, "readonly.json", 0o444), "readonly.json"),
        "in-dir": (lambda d: _dir(d, "unreadable-dir", 0o000), "unreadable-dir"),
        "out-dir": (lambda d: _dir(d, "readonly-dir", 0o555), "readonly-dir"),
    }[path_kind]
    folder = class_of_special_files if path_kind == "in-dir" else (lambda d: _dir(d, "folder.json"))
    # A regular file whose size stat gives as 0 but that reads as text, and text of another kind
    # (issue 50: `03 --predict --answers /proc/version` was waived, 77, before the file was read).
    not_its_kind = [("/proc/version", None, "/proc/version")] if path_kind == "in-file" else []
    return not_its_kind + [
        ("FIFO", _fifo, in_case_dir("fifo.json")),
        ("/dev/zero", None, "/dev/zero"),
        ("/dev/null", None, "/dev/null"),
        ("directory", folder, in_case_dir("folder.json")),
        ("socket", _socket, in_case_dir("sock.json")),
        ("dangling symlink", _dangling, in_case_dir("dangling.json")),
        ("path in a missing folder", None, in_case_dir("missing/sub/x.json")),
        ("read-only" if path_kind.startswith("out") else "unreadable", read_only[0], in_case_dir(read_only[1])),
    ]


def special_allowed(path_kind, label, inv, command):
    if label == "directory" and path_kind == "out-dir":
        return inv.allowed_if_valid(command) - {USAGE}
    if label == "directory" and path_kind == "in-dir":
        return frozenset({1})  # a class of files that are not runs: graded, and failed
    return frozenset({USAGE})


def path_kind_of(kind, writes):
    if kind == "dir":
        return "out-dir" if writes else "in-dir"
    return "out-file" if writes else "in-file"


def special_file_cases(commands, inv, root_user):
    for command in commands:
        for flag in command.flags:
            if flag.kind in ("file", "dir"):
                yield from _special_for(command, flag.name, path_kind_of(flag.kind, flag.writes), inv, root_user,
                                        lambda path, f=flag: inv.base(command, ([f.needs] if f.needs else []) + [f.name, path]),
                                        names=tuple(n for n in (flag.name, flag.needs) if n))
        for p in command.positionals:
            if p.kind == "dir" or (p.kind == "run" and p.required):
                for position in range(p.count):
                    def argv(path, position=position):
                        words = inv.positionals(command)
                        words[position] = path
                        return [command.word, *words]
                    yield from _special_for(command, f"{p.name}[{position}]" if p.count > 1 else p.name,
                                            "in-dir" if p.kind == "dir" else "in-file", inv, root_user, argv, names=())


def _special_for(command, what, path_kind, inv, root_user, make_argv, names):
    for label, setup, path in special_files(path_kind):
        rows = CLASS_ENTRIES if (path_kind == "in-dir" and label == "directory") else ()
        nobody = root_user and label in ("read-only", "unreadable")
        yield Case("special file", f"{label} as {path_kind.replace('-', ' ')}", f"{command.word or 'cudalab'} {what} <{label}>",
                   make_argv(path), special_allowed(path_kind, label, inv, command), where=f"{command.word or 'cudalab'} {what}",
                   setup=setup, names=names, rows=rows, as_nobody=nobody, heavy=label in ("FIFO", "/dev/zero"))


def all_cases(commands, inv, root_user):
    yield from flag_value_cases(commands, inv)
    yield from positional_cases(commands, inv)
    yield from special_file_cases(commands, inv, root_user)


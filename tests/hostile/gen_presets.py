"""Cases from class presets: `cudalab --config FILE NN --print-config` with a TOML file that is
mutated in every way a hand-edited or hostile preset can be. --print-config runs nothing, so a
preset that is accepted answers 0; one that is not answers 2 with one line."""

import os
import random

from case import Case, in_case_dir

USAGE = 2
VALID = frozenset({0})
REFUSED = frozenset({USAGE})
EITHER = frozenset({0, USAGE})

# A TOML value of each type, and the hostile strings of gen_flags.VALUES written as TOML.
TOML_VALUES = [
    ("empty string", '""'),
    ("zero", "0"),
    ("negative", "-1"),
    ("huge", "9" * 30),                    # past int64: TOML itself refuses it
    ("2^64", str(2 ** 64)),
    ("NaN", "nan"),
    ("float", "3.5"),
    ("bool", "true"),
    ("array", "[1, 2]"),
    ("inline table", "{ a = 1 }"),
    ("date", "1979-05-27T07:32:00Z"),
    ("ESC sequence", '"\\u001b[31mred\\u001b[0m"'),
    ("newline", '"one\\ntwo"'),
    ("100k characters", '"' + "7" * 100_000 + '"'),
]


def preset_lesson(commands):
    """The lesson with the most flags of its own: the richest [section] to mutate."""
    lessons = [c for c in commands if c.lesson]
    shared = set.intersection(*(set(f.name for f in c.flags) for c in lessons))
    return max(lessons, key=lambda c: sum(f.name not in shared for f in c.flags))


def may_be_valid(flag, label):
    kind = flag.kind
    if kind == "switch":
        return label == "bool"
    if kind in ("int", "size", "percent", "number"):
        if label == "float":
            return kind == "number"
        if label in ("zero", "negative"):
            return not flag.range or flag.range[0] <= int({"zero": 0, "negative": -1}[label]) <= flag.range[1]
        return False
    if kind in ("file", "dir") and flag.writes:
        return label in ("ESC sequence", "newline")  # legal, if odd, file names
    return False


def valid_lines(lesson):
    """Two settings the lesson accepts: its first integer and first choice flag, at their defaults."""
    lines = []
    ints = [f for f in lesson.flags if f.kind == "int" and f.default and f.default.isdigit()]
    choices = [f for f in lesson.flags if f.kind == "choice" and f.default]
    for flag in ints[:1]:
        lines.append(f"{flag.name[2:]} = {flag.default}")
    for flag in choices[:1]:
        lines.append(f'{flag.name[2:]} = "{flag.default}"')
    return lines


def file_case(lesson, label, family, text, allowed, heavy=False, where="preset file"):
    """A case whose preset is `text` (bytes, or a function of the case folder giving bytes)."""
    def setup(case_dir):
        data = text(case_dir) if callable(text) else text
        (case_dir / "preset.toml").write_bytes(data)
    return Case("preset", family, f"--config <{label}> {lesson.word} --print-config",
                ["--config", in_case_dir("preset.toml"), lesson.word, "--print-config"], allowed, where=where,
                setup=setup, names=("preset.toml",), heavy=heavy)


def value_cases(lesson):
    section = f"[{lesson.name}]\n"
    for flag in lesson.flags:
        for label, value in TOML_VALUES:
            text = f"{section}{flag.name[2:]} = {value}\n".encode()
            allowed = EITHER if may_be_valid(flag, label) else REFUSED
            yield file_case(lesson, f"{flag.name[2:]} = {label}", f"{label} as a preset value", text, allowed,
                            heavy=len(text) > 50_000, where=f"key {flag.name[2:]}")


def path_key_cases(lesson):
    """Every path key pointed at a FIFO and at /dev/zero: --print-config must not open either."""
    section = f"[{lesson.name}]\n"
    for flag in lesson.flags:
        if flag.kind not in ("file", "dir"):
            continue
        needs = f"{flag.needs[2:]} = true\n" if flag.needs else ""
        key = flag.name[2:]
        yield file_case(lesson, f'{key} = "FIFO"', "preset path key", lambda d, key=key, needs=needs: (
            os.mkfifo(d / "fifo"), f'{section}{needs}{key} = "{d / "fifo"}"\n'.encode())[1], REFUSED, heavy=True,
            where=f"key {key}")
        yield file_case(lesson, f'{key} = "/dev/zero"', "preset path key",
                        f'{section}{needs}{key} = "/dev/zero"\n'.encode(), REFUSED, heavy=True, where=f"key {key}")


def structure_cases(lesson):
    section = f"[{lesson.name}]\n"
    good = "".join(f"{line}\n" for line in valid_lines(lesson))
    first_int = next((f.name[2:] for f in lesson.flags if f.kind == "int"), "streams")
    first_text = next((f.name[2:] for f in lesson.flags if f.kind == "choice"), first_int)
    rng = random.Random(24)
    cases = [
        # Valid TOML that a person's editor produces: must be read as written.
        ("valid", section + good, VALID),
        ("a byte-order mark", "\ufeff" + section + good, VALID),
        ("CRLF line ends", (section + good).replace("\n", "\r\n"), VALID),
        ("BOM and CRLF", "\ufeff" + (section + good).replace("\n", "\r\n"), VALID),
        ("an empty file", "", VALID),
        ("a 900 KB comment", "# " + "c" * 900_000 + "\n" + section + good, VALID),
        # Too big or malformed: one line, exit 2.
        ("a 2 MB file", "# " + "c" * 2_000_000 + "\n" + section + good, REFUSED),
        ("a 1 MB value", f'{section}{first_text} = "{"x" * 1_000_000}"\n', REFUSED),
        ("a 100,000-digit integer", f"{section}{first_int} = 1{'0' * 99_999}\n", REFUSED),
        ("a 100,000-character key", f"{section}{'k' * 100_000} = 1\n", REFUSED),
        ("a duplicate key", f"{section}{good}{good}", REFUSED if good else VALID),
        ("a duplicate section", f"{section}{good}{section}", REFUSED),
        ("an unknown key", f"{section}no-such-flag = 1\n", REFUSED),
        ("a NUL byte", f"{section}{first_int} = 1\0\n", REFUSED),
        ("an unterminated string", f'{section}{first_text} = "open\n', REFUSED),
        ("arrays 70,000 deep", f"{section}{first_int} = {'[' * 70_000}{']' * 70_000}\n", REFUSED),
        # issue 50: toml++ asserted on this in a debug build; bounded before it reads the text.
        ("100,000 nested brackets", "[" * 100_000 + "\n", REFUSED),
        ("arrays 100,000 deep, one a line", f"{section}{first_int} = " + "[\n" * 100_000, REFUSED),
        ("a 5,000-character line", f'{section}{first_text} = "{"x" * 5_000}"\n', REFUSED),
        ("inline tables 70,000 deep", f"{section}{first_int} = {'{ a = ' * 70_000}1{' }' * 70_000}\n", REFUSED),
        # A section that is neither [all], [show] nor a lesson's name is refused (docs/presets.md),
        # quickly and in one line.
        ("a 100,000-character section name", f"[{'s' * 100_000}]\nx = 1\n", REFUSED),
        ("100,000 sections", "".join(f"[s{i}]\n" for i in range(100_000)) + section + good, REFUSED),
    ]
    for label, text, allowed in cases:
        yield file_case(lesson, label, label, text.encode(), allowed, heavy=len(text) > 50_000)
    yield file_case(lesson, "invalid UTF-8", "invalid UTF-8", f"{section}{first_text} = \"\xff\xfe\"\n".encode("latin-1"),
                    REFUSED)
    yield file_case(lesson, "random bytes", "random bytes", bytes(rng.randrange(256) for _ in range(4096)), REFUSED)


def preset_cases(commands):
    lesson = preset_lesson(commands)
    yield from structure_cases(lesson)
    yield from path_key_cases(lesson)
    yield from value_cases(lesson)

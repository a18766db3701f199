"""What the binary says it accepts, read from its own `list` and `--help` output.

Nothing here names a flag: a flag added tomorrow is tested tomorrow, and a flag that is renamed
cannot leave a stale entry behind. The parser reads CLI11's help layout ("  --name TYPE  text",
a description on the same line after two spaces or on indented lines below it) and classifies
each flag by its type word (INT, SIZE, FILE, a|b|c, ...) and its description ("write ..." means
an output path; "with --predict: ..." names a flag it needs).
"""

import concurrent.futures
import os
import re
import subprocess
from dataclasses import dataclass, field


def help_text(binary, args):
    """stdout of `binary ARGS --help`, which must succeed: without it there is nothing to test."""
    done = subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          env=quiet_environment(os.getcwd()), timeout=10, check=False)
    if done.returncode != 0:
        raise SystemExit(f"hostile: `{' '.join(args)}` exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace')[:200]}")
    return done.stdout.decode()


def quiet_environment(home):
    """The environment of every case: no colour, no GPU (a lesson that gets past its flags is
    waived instead of running for seconds on a GPU machine), English, 80 columns."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "COLUMNS": "80",
        "TERM": "dumb",
        "CUDA_VISIBLE_DEVICES": "",
    }


@dataclass(frozen=True)
class Flag:
    name: str          # --streams
    token: str         # the value's type as help prints it ("INT:[1 - 64]"); "" for a switch
    description: str

    @property
    def kind(self):
        return classify(self.token)

    @property
    def range(self):
        """(low, high) when help prints "[low - high]", else None."""
        m = re.search(r"\[(-?\d+) - (-?\d+)\]", self.token)
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def choices(self):
        return choices_of(self.token)

    @property
    def writes(self):
        """A path flag whose file the run writes (--json, --svg) rather than reads (--answers)."""
        return "write" in self.description.lower()

    @property
    def needs(self):
        """The flag this one only works with ("with --predict: read the answers ...")."""
        m = re.match(r"with (--[a-z][\w-]*)", self.description)
        return m.group(1) if m else None

    @property
    def default(self):
        m = re.search(r"=([^\s(]+)", self.token)
        return m.group(1) if m else None


@dataclass(frozen=True)
class Positional:
    name: str          # RUNS
    token: str         # the type, if the help shows one
    description: str
    required: bool = False  # from the usage line: "RUNS RUNS..." is required, "[TOPIC]" is not
    count: int = 1          # how many values it needs at least: the name's repeats in the usage line

    @property
    def kind(self):
        return classify(self.token.strip() or self.name)


@dataclass
class Command:
    name: str                      # "stream-overlap", "show", "" for the global options
    lesson: str = None             # "03" when the command is a lesson
    flags: list = field(default_factory=list)
    positionals: list = field(default_factory=list)
    takes_lesson: bool = False     # its usage line ends in COMMAND: `live 03`

    @property
    def word(self):
        """How a student types it: lessons by number."""
        return self.lesson or self.name


def classify(token):
    upper = token.upper()
    if not token:
        return "switch"
    if "FILE" in upper:
        return "file"
    if "DIR" in upper:
        return "dir"
    if upper == "N" or upper.startswith("N|"):
        return "int"  # a count or an index ("N|auto": --device)
    if "|" in token:
        return "choice"
    for prefix, kind in (("INT", "int"), ("SIZE", "size"), ("PERCENT", "percent"), ("FLOAT", "number"),
                         ("NUMBER", "number"), ("SECONDS", "number"), ("RUN", "run")):
        if upper.startswith(prefix):
            return kind
    return "text"


def choices_of(token):
    if "|" not in token:
        return []
    text = token.split(":", 1)[1] if token.startswith("TEXT:") else token
    return re.split(r"\|", re.split(r"[=\s]", text)[0])


def parse_lessons(list_text):
    """[(number, slug)] from `cudalab list`: "  03  stream-overlap   one stream vs many ..."."""
    return re.findall(r"^\s+(\d{2})\s+([a-z][\w-]*)\s", list_text, re.M)


def parse_subcommands(help_text_):
    """Names in the "Subcommands:" section of `cudalab --help`."""
    return [name for section, line in sections(help_text_) if section in ("Subcommands", "Commands")
            for name in re.findall(r"^  ([a-z][\w-]*)(?:\s{2,}|$)", line)]


def sections(text):
    """(section name, line) for each indented line under a "Name:" header."""
    section = ""
    for line in text.splitlines():
        header = re.match(r"^(\S[^:]*):\s*$", line)
        if header:
            section = header.group(1)
        elif line.startswith(" "):
            yield section, line


def split_token(rest):
    """" TYPE   description" -> (TYPE, description); "   description" -> ("", description)."""
    if rest.startswith(" ") and not rest.startswith("  "):
        parts = re.split(r"\s{2,}", rest.strip(), maxsplit=1)
        return parts[0], parts[1] if len(parts) > 1 else ""
    return "", rest.strip()


def usage_words(text):
    """The words of the "Usage: cudalab CMD [OPTIONS] RUNS RUNS..." line."""
    for line in text.splitlines():
        if line.startswith("Usage:"):
            return line.split()[1:]
    return []


def parse_help(text):
    """(flags, positionals) of one command's --help; --help and --version are not inputs."""
    flags, positionals, last = [], [], None
    usage = [word.rstrip(".") for word in usage_words(text)]
    for section, line in sections(text):
        if section in ("Subcommands", "Commands", "Exit codes", "Usage"):
            continue
        flag = re.match(r"^\s+(?:-\w,)?(--[a-z][\w-]*)(.*)$", line)
        positional = re.match(r"^\s{2}([A-Z][A-Z0-9_]*)( .*)$", line) if section == "Positionals" else None
        if flag:
            token, description = split_token(flag.group(2))
            last = Flag(flag.group(1), token, description)
            flags.append(last)
        elif positional:
            token, description = split_token(positional.group(2))
            name = positional.group(1)
            last = Positional(name, token, description, name in usage, max(1, usage.count(name)))
            positionals.append(last)
        elif last is not None and line.strip():
            # A description continued on the next line (or started there, after a long type).
            described = (last.description + " " + line.strip()).strip()
            grown = (Flag(last.name, last.token, described) if isinstance(last, Flag)
                     else Positional(last.name, last.token, described, last.required, last.count))
            (flags if isinstance(last, Flag) else positionals)[-1] = grown
            last = grown
    flags = [f for f in flags if f.name not in ("--help", "--version")]
    return flags, positionals


def read_commands(binary):
    """Every command the binary offers, with its flags and positionals, and the global options."""
    lessons = dict((slug, number) for number, slug in parse_lessons(help_text(binary, ["list"])))
    top = help_text(binary, ["--help"])
    commands = []
    global_flags, _ = parse_help(top)
    commands.append(Command("", None, global_flags, []))
    names = parse_subcommands(top)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        helps = list(pool.map(lambda name: help_text(binary, [name, "--help"]), names))
    for name, text in zip(names, helps):
        flags, positionals = parse_help(text)
        takes_lesson = lessons.get(name) is None and any(w.strip("[]") == "COMMAND" for w in usage_words(text))
        commands.append(Command(name, lessons.get(name), flags, positionals, takes_lesson))
    if not any(c.lesson for c in commands):
        raise SystemExit("hostile: `cudalab list` and `--help` name no lesson; nothing to test")
    return commands

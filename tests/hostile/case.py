"""One hostile case: the command line, what it may answer, and how to set up its files."""

from dataclasses import dataclass, field

# argv elements may name files made in the case's own folder; NUL cannot occur in a real
# argument, so this marker cannot collide with a hostile value.
CASE_DIR = "\0case\0"


def in_case_dir(name):
    return f"{CASE_DIR}/{name}"


@dataclass
class Case:
    category: str                # "flag value", "special file", "run mutant", "preset", ...
    family: str                  # the kind of hostile input, failures are grouped by it: "newline to a choice flag"
    label: str                   # the command line as a person reads it, hostile parts named
    argv: list                   # arguments after the binary; CASE_DIR is replaced at run time
    allowed: frozenset           # exit codes that keep the contract for this input
    where: str = ""              # the flag or command it hit: "03 --memory", "show 03"
    setup: object = None         # setup(case_dir: Path) makes the case's own files
    names: tuple = ()            # an exit-2 message must name one of these (the flag at fault)
    rows: tuple = ()             # grade: every one of these file names must get a row
    as_nobody: bool = False      # root ignores file modes: read-only cases run as nobody
    heavy: bool = False          # large input or a likely hang: started first
    busy: bool = False           # CPU-bound on a large input: run with a CPU of its own (see run.py)
    checks: list = field(default_factory=list)  # extra (description, predicate(stdout)) pairs


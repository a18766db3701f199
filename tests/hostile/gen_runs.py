"""Cases from saved runs: every reference run in course-notes/runs/, mutated, fed to `show F`,
`compare NN F` / `compare F NN` and `grade DIR`. A student's submission is untrusted input:
whatever it holds, one bad file must not crash, hang or flood the grader's terminal.

What each may answer: a file that is not a run (cut short, not JSON, nested past any sane
depth) is refused (2; grade gives it a row and exits 1). A run whose content changed is
"modified" (1) or refused (2) when it carries a digest; without a digest (an unsealed run) a
changed value cannot be told from a real one, so 0 is allowed too. A changed field whose
content the digest may not cover (derived state, an ignored key) may come back intact (0).
"""

import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from case import Case, in_case_dir
from gen_flags import class_of_special_files

REFUSED = frozenset({2})
CHANGED = frozenset({1, 2})
ANY_VERDICT = frozenset({0, 1, 2})


@dataclass
class Mutant:
    category: str      # "truncated", "byte flip", ...
    name: str          # short file name, so grade's first column shows it whole
    text: bytes
    allowed: frozenset  # for show; compare may also find a headline out of tolerance (1)
    what: str          # how it was made, for the report


def strictly_json(data):
    """Whether a strict parser accepts the bytes: UTF-8, no NaN literals, nothing after the value."""
    def refuse(constant):
        raise ValueError(constant)
    try:
        json.loads(data.decode("utf-8"), parse_constant=refuse)
        return True
    except (ValueError, UnicodeDecodeError):
        return False


def truncations(text):
    """Cut at 20 offsets spread over the file, the first being the empty file."""
    for i in range(20):
        at = len(text) * i // 20
        yield Mutant("truncated", f"t{i:02d}", text[:at], REFUSED, f"cut at byte {at}")


def byte_flips(text, rng, count=5):
    """One byte replaced by a random other byte: control bytes, invalid UTF-8, broken syntax."""
    for i in range(count):
        at = rng.randrange(len(text))
        new = rng.choice([b for b in range(256) if b != text[at]])
        data = text[:at] + bytes([new]) + text[at + 1:]
        # Still JSON: a changed string or number is modified (1), but a byte in a key the
        # reader ignores leaves the run as it was (0).
        allowed = ANY_VERDICT if strictly_json(data) else REFUSED
        yield Mutant("byte flip", f"b{i}", data, allowed, f"byte {at} 0x{text[at]:02x}->0x{new:02x}")


def swapped(value):
    """A value of another JSON type, chosen to be the most plausible wrong one."""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 12345
    if isinstance(value, list):
        return {}
    if isinstance(value, dict):
        return []
    return 0


def find_parent(node, path):
    """The first object that holds `path` (keys, with [] for "an element of this array")."""
    if not path:
        return None
    head, rest = path[0], path[1:]
    if head == "[]":
        for item in node if isinstance(node, list) else []:
            found = find_parent(item, rest)
            if found is not None:
                return found
        return None
    if not isinstance(node, dict) or head not in node:
        return None
    return node if not rest else find_parent(node[head], rest)


def schema_paths(doc, prefix=()):
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield prefix + (key,)
            yield from schema_paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for item in doc:
            yield from schema_paths(item, prefix + ("[]",))


def field_mutants(docs):
    """Each field of the run schema (as the ten runs use it), its type swapped and removed, in
    one run that has it: the runs share one reader, so one run per field covers its code."""
    owners = {}
    for index, (stem, doc) in enumerate(docs):
        for path in schema_paths(doc):
            owners.setdefault(path, []).append(index)
    for number, (path, holders) in enumerate(sorted(owners.items())):
        index = holders[number % len(holders)]
        stem, doc = docs[index]
        for how in ("swapped", "removed"):
            changed = json.loads(json.dumps(doc))
            parent = find_parent(changed, path)
            if how == "swapped":
                parent[path[-1]] = swapped(parent[path[-1]])
            else:
                del parent[path[-1]]
            name = f"{'s' if how == 'swapped' else 'r'}{number:03d}"
            yield index, Mutant(f"field {how}", name, json.dumps(changed, indent=2).encode(), ANY_VERDICT,
                                f"{''.join('[]' if p == '[]' else '.' + p for p in path)} {how}")


def first_metric(doc):
    for section in doc.get("sections", []):
        for metric in section.get("metrics", []):
            return metric
    return None


def first_plot(doc):
    for section in doc.get("sections", []):
        for plot in section.get("plots", []):
            if any(series.get("points") for series in plot.get("series", [])):
                return plot
    return None


def first_verify(doc):
    return next((c for c in doc.get("checks", []) if c.get("kind") == "verify"), None)


def nested(text, depth, opening, closing, inner=b""):
    """The run with one extra field nested `depth` levels deep, written as text: a Python
    structure that deep could not be dumped."""
    return b'{"nested": ' + opening * depth + inner + closing * depth + b"," + text.lstrip()[1:]


def structural_mutants(text, doc, changed):
    """The shapes that crashed or hung a reader before: depth, length, size of numbers."""
    yield Mutant("nested deep", "n100", nested(text, 100, b"[", b"]"), ANY_VERDICT, "an extra field 100 deep")
    yield Mutant("nested deep", "n70k", nested(text, 70_000, b"[", b"]"), REFUSED, "an extra field 70,000 arrays deep")
    yield Mutant("nested deep", "o70k", nested(text, 70_000, b'{"a":', b"}", b"1"), REFUSED,
                 "an extra field 70,000 objects deep")

    def edited(name, what, edit, allowed=changed):
        copy = json.loads(json.dumps(doc))
        edit(copy)
        return Mutant("long or odd value", name, json.dumps(copy, indent=2).encode(), allowed, what)

    if first_metric(doc) is not None:
        yield edited("w1mb", "a metric label of 1 MB of words",
                     lambda d: first_metric(d).update(label="word " * 200_000))
    yield edited("x1mb", "a lesson title of 1 MB, no spaces", lambda d: d["lesson"].update(title="x" * 1_000_000))
    if first_verify(doc) is not None:
        yield edited("v60k", "a verify summary '1,1,1,… of 1' of 60 KB",
                     lambda d: first_verify(d).update(summary=",".join(["1"] * 30_000) + " of 1"))
    yield edited("esc", "ESC, BEL and a newline in the title and a check summary", lambda d: (
        d["lesson"].update(title="\x1b[31mred\x07\x1b]0;owned\x07\nsecond line"),
        d["checks"][0].update(summary="\x1b[2J\x1b[Hcleared\r\n") if d.get("checks") else None))

    def huge(d):
        d["lesson"]["number"] = 2 ** 64
        if d.get("devices"):
            d["devices"][0]["sm_count"] = -(2 ** 63) - 1
        m = first_metric(d)
        if m:
            m.update(samples=[1.7976931348623157e308] * max(1, len(m.get("samples", []))),
                     median=1.7976931348623157e308, min=-1.7976931348623157e308, max=5e-324)
    yield edited("huge", "numbers at the ends of int64 and double", huge)

    def log_axes_out_of_domain(d):
        # issue 50: show of a log-x plot with an x <= 0 overflowed an int in the axis code.
        plot = first_plot(d)
        plot.update(log_x=True, log_y=True)
        ends = [-1.0, 0.0, 1.7976931348623157e308, 5e-324, -1.7976931348623157e308]
        for k, series in enumerate(plot["series"]):
            for i, point in enumerate(series.get("points", [])):
                point["x"] = ends[(i + k) % len(ends)]
                if "metric" not in point:
                    point["y"] = -ends[(i + k + 1) % len(ends)]
    if first_plot(doc) is not None:
        yield edited("logx", "a log plot with x <= 0 and x at the ends of double", log_axes_out_of_domain)
        one = edited("p1e400", "a plot point's x of 1e400 (infinite)", lambda d: next(
            s for s in first_plot(d)["series"] if s.get("points"))["points"][0].update(x="__INF__"))
        one.text = one.text.replace(b'"__INF__"', b"1e400")
        yield one
    past = edited("past", "1e400 and a 400-digit integer", lambda d: d["lesson"].update(number="__BIG__", title="__INF__"))
    past.text = past.text.replace(b'"__BIG__"', b"9" * 400).replace(b'"__INF__"', b"1e400")
    yield past


@dataclass
class RunSet:
    stem: str          # 03-stream-overlap
    lesson: str        # 03
    mutants: list


def mutate_all(runs_dir):
    """Every reference run and its mutants. One random generator with a fixed seed for the
    byte flips, so a failure can be reproduced from its name."""
    rng = random.Random(24)
    paths = sorted(Path(runs_dir).glob("*.json"))
    docs = [(p.stem, json.loads(p.read_bytes())) for p in paths]
    sets = []
    for path, (stem, doc) in zip(paths, docs):
        text = path.read_bytes()
        changed = CHANGED if "digest" in doc else ANY_VERDICT  # unsealed: a change cannot be told
        mutants = [*truncations(text), *byte_flips(text, rng), *structural_mutants(text, doc, changed)]
        sets.append(RunSet(stem, stem.split("-")[0], mutants))
    for index, mutant in field_mutants(docs):
        sets[index].mutants.append(mutant)
    return sets


def write_mutants(sets, root):
    """Files under root/NN/category/, one folder per category so grade can take each whole."""
    for run_set in sets:
        for m in run_set.mutants:
            folder = root / run_set.lesson / m.category.replace(" ", "-")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{m.name}.json").write_bytes(m.text)


def run_cases(sets, root, full=False):
    """show and compare for each mutant, grade for each folder. compare takes the mutant as the
    run (`compare NN F`) and as the baseline (`compare F NN`): both orders with --full,
    otherwise they alternate, which keeps the suite within a minute on two cores."""
    write_mutants(sets, root)
    for run_set in sets:
        folders = {}
        for i, m in enumerate(run_set.mutants):
            folder = root / run_set.lesson / m.category.replace(" ", "-")
            path = str(folder / f"{m.name}.json")
            folders.setdefault(folder, []).append(m)
            family = m.what if m.category in ("nested deep", "long or odd value") else f"{m.category} run"
            what = f"<{run_set.lesson} {m.category}: {m.what}>"
            heavy = len(m.text) > 500_000 or m.category == "nested deep"
            yield Case("run mutant", family, f"show {what}", ["show", path], m.allowed, where=f"show {run_set.lesson}",
                       heavy=heavy)
            orders = [0, 1] if full else [i % 2]
            for order in orders:
                argv = ["compare", run_set.lesson, path] if order == 0 else ["compare", path, run_set.lesson]
                label = f"compare {run_set.lesson} {what}" if order == 0 else f"compare {what} {run_set.lesson}"
                yield Case("run mutant", family, label, argv, m.allowed | ({1} if m.allowed != REFUSED else set()),
                           where=f"compare {run_set.lesson} F" if order == 0 else f"compare F {run_set.lesson}", heavy=heavy)
        for folder, mutants in folders.items():
            must_fail = any(m.allowed.isdisjoint({0}) for m in mutants)
            yield Case("run mutant", f"grade of a folder of {mutants[0].category} runs",
                       f"grade <{run_set.lesson}: {len(mutants)} {mutants[0].category} runs>", ["grade", str(folder)],
                       frozenset({1}) if must_fail else frozenset({0, 1}), where=f"grade {run_set.lesson}",
                       rows=tuple(f"{m.name}.json" for m in mutants), heavy=True, busy=True)


def class_folder_case(sets, runs_dir, root):
    """The issue's class: the ten reference runs plus the files that crashed or hung grade
    before. Every file gets a row; the class fails (1); all of it within the time limit."""
    folder = root / "class"
    folder.mkdir(parents=True)
    for path in sorted(Path(runs_dir).glob("*.json")):
        shutil.copy(path, folder / path.name)
    wanted = ("n100", "n70k", "o70k", "w1mb", "x1mb", "v60k", "t00", "t10", "esc", "past")
    pick = max(sets, key=lambda s: sum(m.name in wanted for m in s.mutants))
    for m in pick.mutants:
        if m.name in wanted:
            (folder / f"{m.name}.json").write_bytes(m.text)

    def specials(case_dir):
        # The FIFO, device and socket entries are made per case: nothing else may open them.
        target = case_dir / "class"
        shutil.copytree(folder, target)
        made = class_of_special_files(case_dir)
        for entry in os.listdir(made):
            os.rename(made / entry, target / entry)
    # sub.json is a folder: grade reads it as a student's subfolder (empty here), so it has no row.
    names = sorted(p.name for p in folder.iterdir()) + ["fifo.json", "sock.json", "dangling.json", "zero.json",
                                                        "null.json", "unreadable.json"]
    return Case("class folder", "grade of a class with hostile files", "grade <10 reference runs + crash and hang files>",
                ["grade", in_case_dir("class")], frozenset({1}), setup=specials,
                rows=tuple(sorted(names)), heavy=True, busy=True)

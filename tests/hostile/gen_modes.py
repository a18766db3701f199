"""Cases from modes: commands used without what they need, and the modes the issue found
misbehaving (`--live` without a lesson, `all --print-config` running the course)."""

from case import Case

USAGE = 2


def mode_cases(commands, inv):
    names = {c.name for c in commands}
    lesson = inv.lesson
    slugs = [c.name for c in commands if c.lesson]
    yield Case("mode", "no arguments", "cudalab", [], frozenset({0}))
    yield Case("mode", "unknown command", "cudalab no-such-command", ["no-such-command"], frozenset({USAGE}))
    yield Case("mode", "unknown flag", f"cudalab {lesson} --no-such-flag", [lesson, "--no-such-flag"],
               frozenset({USAGE}), names=("--no-such-flag",))
    yield Case("mode", "a lesson twice", f"cudalab {lesson} {lesson}", [lesson, lesson], frozenset({USAGE}))
    # README and docs/live-mode.md: `--live` is live mode, "as cudalab live NN": without a lesson there is nothing to run.
    yield Case("mode", "--live without a lesson", "cudalab --live", ["--live"], frozenset({USAGE}))
    for command in commands:
        if any(p.required for p in command.positionals):
            yield Case("mode", f"{command.name} without its {command.positionals[0].name}",
                       f"cudalab {command.name}", [command.name], frozenset({USAGE}))
    if "all" in names:
        # --print-config prints what would run and runs nothing: every lesson's flags, exit 0.
        yield Case("mode", "all --print-config", "cudalab all --print-config", ["all", "--print-config"],
                   frozenset({0}), checks=[(f"prints the flags of every lesson ({len(slugs)})",
                                            lambda out: all(s in out for s in slugs))])


def baseline_cases(commands, inv):
    """Each command run validly: the exit code a valid flag value must leave unchanged."""
    # grade's folder is the reference runs: copies of the built-in references, each flagged, so the
    # grade fails (1). submit has no drop folder in this suite: a usage error (2) before anything.
    # This build holds no class key, so `class check` says it cannot seal runs (1).
    expected = {"grade": frozenset({1}), "submit": frozenset({2}), "class": frozenset({1})}
    for command in commands:
        if command.name:
            yield command.name, Case("baseline", command.name, " ".join(inv.base(command)), inv.base(command),
                                     expected.get(command.name, frozenset({0, 77})))

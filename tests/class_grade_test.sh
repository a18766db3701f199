#!/usr/bin/env bash
# A class graded end to end without a GPU, by real distinct users (uids 10001-10014 through
# setpriv; no password entries, so each is named "uid N"). Needs root to switch users: CI runs
# as root; elsewhere the test is skipped (77).
#   tests/class_grade_test.sh CUDALAB FAKE
# FAKE (tests/unit/class_fake_main.cpp) makes a lesson run without a GPU through the real
# provenance stamp, digest and hand-in; every other step is cudalab itself. The class:
#   alice, bob, carol  honest runs (alice with --submit, bob with `submit`, carol two lessons)
#   dave               a copy of the built-in reference run of 04, put in the drop folder by hand
#   erin, frank        one run: erin's, handed in by both (frank by hand: submit refuses it)
#   grace              a run of 05 under the name of 03
#   heidi              a run with an edited figure
#   ivan               a run from a build with uncommitted changes
#   judy               a run with --streams 8 where the class assigns 4
#   mallory            her sealed run with every sample ×(1+1e-12) and its digest computed again
#   oscar              a run from a build of his own (no class key): its digest is sound
#   peggy              an honest run handed in after it was due, its mtime set back with touch
#   trent              the same, with an extension
# The class's cudalab (and the stand-in lesson) are installed setgid to a group of their own with a
# class key only that group reads (docs/grade.md, "The class seal"): honest runs are sealed by the
# class. `grade` must flag each dishonest run with its reason and pass only alice, bob, carol and
# trent; the gradebook CSV must load with Python's csv module, one row per student. `submit` is
# tested between two users: bob can neither list the folder nor read, replace or remove alice's
# run. `class check` and the running setgid cudalab are tested as a student sees them: the key is
# held, the group is given up, the process is not dumpable and its memory cannot be read.
set -u
cudalab=${1:?the cudalab binary}
fake=${2:?the stand-in lesson binary (cudalab_class_fake)}
[ "$(id -u)" -eq 0 ] || { echo "class_grade_test: needs root to run as several users; skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "class_grade_test: no setpriv; skipped"; exit 77; }

scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
fail() { echo "class_grade_test: $*" >&2; exit 1; }
staff=20000
drop=$scratch/inbound
install -d -m 3733 -o 0 -g "$staff" "$drop" && setfacl -d -m u::rw,g::r,o::- "$drop" || fail "cannot make the drop folder (setfacl: Debian acl)"
build=0.1.0+c1a55c1a55c1
cat >"$scratch/class.toml" <<EOF
[grade]
drop = "$drop"
lessons = ["03", "callbacks"]
build = "$build"
gpus = ["GPU-fa4e0000-0000-0000-0000-000000000000"]
opens = 2020-01-01T00:00:00Z
due = 2999-01-01T00:00:00+08:00

[stream-overlap]
streams = 4
EOF
chmod 644 "$scratch/class.toml"

declare -A uid=([alice]=10001 [bob]=10002 [carol]=10003 [dave]=10004 [erin]=10005 [frank]=10006 [grace]=10007
                [heidi]=10008 [ivan]=10009 [judy]=10010 [mallory]=10011 [oscar]=10012 [peggy]=10013 [trent]=10014
                [victor]=10016)
for name in "${!uid[@]}"; do install -d -m 700 -o "${uid[$name]}" -g "${uid[$name]}" "$scratch/$name"; done
install -d -m 1777 "$scratch/shared"  # where erin leaves her run for frank

# ── the class's install: setgid to its group, with the key only that group reads ──────────────
# Beside the build (not under /tmp, which may be mounted nosuid): PREFIX/bin and PREFIX/etc/cudalab.
class_group=20001
prefix=$(mktemp -d -p "$(cd "$(dirname "$fake")" && pwd)" class-install.XXXXXX) || exit 1
trap 'rm -rf "$scratch" "$prefix"' EXIT
if findmnt -no OPTIONS -T "$prefix" 2>/dev/null | tr ',' '\n' | grep -qx nosuid; then
  echo "class_grade_test: the build folder is on a nosuid mount: a setgid install cannot be tested; skipped"; exit 77
fi
chmod 755 "$prefix"
install -d -m 755 "$prefix/bin" "$prefix/etc/cudalab"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$prefix/etc/cudalab/class.key"
chown 0:"$class_group" "$prefix/etc/cudalab/class.key" && chmod 0440 "$prefix/etc/cudalab/class.key"
for b in "$cudalab" "$fake"; do
  install -m 2755 -o 0 -g "$class_group" "$b" "$prefix/bin/$(basename "$b")"
done
class_cudalab=$prefix/bin/$(basename "$cudalab")
class_fake=$prefix/bin/$(basename "$fake")

# `as NAME COMMAND...`: the command as that student, in their own folder.
as() {
  local who=$1
  shift
  (cd "$scratch/$who" && setpriv --reuid="${uid[$who]}" --regid="${uid[$who]}" --clear-groups -- \
     env HOME="$scratch/$who" CUDALAB_CLASS_DIR="$drop" NO_COLOR=1 "$@")
}
run_fake() { local who=$1; shift; as "$who" "$class_fake" --build "$build" "$@"; }

# ── hand-ins ────────────────────────────────────────────────────────────────────────────────────
alice_line=$(run_fake alice --json run.json --submit "$drop") || fail "alice's run and hand-in failed"
alice_file=${alice_line#* as }
alice_file=${alice_file%% into *}
[ -f "$drop/$alice_file" ] || fail "alice's hand-in '$alice_file' is not in the drop folder ($alice_line)"

run_fake bob --json run.json || fail "bob's run failed"
out=$(as bob "$class_cudalab" submit run.json) || fail "bob's submit failed: $out"
[ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "handed in 03-stream-overlap as uid10002-03-stream-overlap-"* ]] ||
  fail "submit did not say in one line where the run went: $out"

run_fake carol --json 03.json && run_fake carol --json 05.json --lesson 05 || fail "carol's runs failed"
as carol "$class_cudalab" submit 03.json >/dev/null && as carol "$class_cudalab" submit 05.json >/dev/null || fail "carol's submit failed"

as dave sh -c "'$cudalab' show 04 --format json > 04.json" || fail "dave could not copy the reference run"
err=$(as dave "$class_cudalab" submit 04.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *"is a copy of the built-in reference run 04-priority"* ]] ||
  fail "submit took a copy of a reference run: $err"
as dave cp 04.json "$drop/dave-04-priority.json" || fail "dave could not write into the drop folder"

run_fake erin --json run.json || fail "erin's run failed"
as erin "$class_cudalab" submit run.json >/dev/null || fail "erin's submit failed"
as erin cp run.json "$scratch/shared/erin.json" && chmod 644 "$scratch/shared/erin.json"
as frank cp "$scratch/shared/erin.json" mine.json || fail "frank could not copy erin's run"
err=$(as frank "$class_cudalab" submit mine.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *"was made by uid 10005, not by you"* ]] || fail "submit took another user's run: $err"
as frank cp mine.json "$drop/frank-03-stream-overlap.json" || fail "frank could not write into the drop folder"

run_fake grace --json run.json --lesson 05 || fail "grace's run failed"
as grace cp run.json "$drop/grace-03-stream-overlap.json" || fail "grace could not write into the drop folder"

run_fake heidi --json run.json || fail "heidi's run failed"
as heidi python3 - <<'EOF' || fail "heidi could not edit her run"
import json
run = json.load(open("run.json"))
metric = run["sections"][0]["metrics"][0]
metric["samples"] = [s * 1.5 for s in metric["samples"]]
metric["median"] = metric["median"] * 1.5
json.dump(run, open("run.json", "w"), indent=2)
EOF
err=$(as heidi "$class_cudalab" submit run.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *"was changed after cudalab wrote it"* ]] || fail "submit took an edited run: $err"
as heidi cp run.json "$drop/heidi-03-stream-overlap.json"
for form in --stable --portable; do
  first=$(as heidi "$cudalab" show run.json "$form" | head -1)
  [[ $first == "integrity modified: its digest does not match its contents" ]] ||
    fail "show $form of the edited run does not begin with its integrity line: $first"
done

run_fake ivan --json run.json --build "$build-dirty" && as ivan "$class_cudalab" submit run.json >/dev/null ||
  fail "ivan's run or submit failed"
run_fake judy --json run.json --streams 8 && as judy "$class_cudalab" submit run.json >/dev/null ||
  fail "judy's run or submit failed"

# mallory: her sealed run, every sample ×(1+1e-12), the digest computed again as a script would.
run_fake mallory --json run.json || fail "mallory's run failed"
as mallory python3 - <<'EOF' || fail "mallory's edit failed"
import json
run = json.load(open("run.json"))
for section in run["sections"]:
    for metric in section.get("metrics", []):
        metric["samples"] = [s * (1 + 1e-12) for s in metric.get("samples", [])]
json.dump(run, open("run.json", "w"), indent=2)
EOF
as mallory "$fake" --reseal run.json || fail "mallory's reseal failed"
err=$(as mallory "$class_cudalab" submit run.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *"its seal does not match its contents"* ]] || fail "submit took a resealed run: $err"
as mallory cp run.json "$drop/mallory-03-stream-overlap.json" || fail "mallory could not write into the drop folder"

# oscar: a run of his own build, which holds no class key; the digest is sound, the seal absent.
as oscar "$fake" --build "$build" --json run.json && as oscar "$cudalab" submit run.json >/dev/null ||
  fail "oscar's run or submit failed"

# peggy and trent run in time and hand in after the due time (set below to this moment); peggy
# sets her hand-in's mtime back, which the kernel's change time does not follow.
run_fake peggy --json run.json && run_fake trent --json run.json || fail "peggy's or trent's run failed"
sleep 1
due_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sleep 2
as peggy "$class_cudalab" submit run.json >/dev/null && as trent "$class_cudalab" submit run.json >/dev/null ||
  fail "peggy's or trent's submit failed"
for f in "$drop"/uid10013-*; do as peggy touch -d 2020-06-01 "$f" || fail "peggy could not touch her hand-in"; done
sed -i "s/^due = .*/due = $due_at\nextensions = { \"uid 10014\" = 2999-01-01T00:00:00Z }/" "$scratch/class.toml"

# ── the drop folder between students ────────────────────────────────────────────────────────────
stat -c '%u %g %a' "$drop/$alice_file" | grep -qx "10001 $staff 640" ||
  fail "alice's run is not hers, the staff's group's and mode 640: $(stat -c '%u %g %a' "$drop/$alice_file")"
before=$(sha256sum <"$drop/$alice_file")
as bob ls "$drop" >/dev/null 2>&1 && fail "bob could list the drop folder"
as bob cat "$drop/$alice_file" >/dev/null 2>&1 && fail "bob could read alice's run"
as bob sh -c "echo forged > '$drop/$alice_file'" 2>/dev/null && fail "bob could overwrite alice's run"
as bob rm -f "$drop/$alice_file" 2>/dev/null
as bob mv "$drop/$alice_file" "$drop/bob-stolen.json" 2>/dev/null
[ "$(sha256sum <"$drop/$alice_file")" = "$before" ] || fail "alice's run changed after bob tried to replace it"
# A run copied in by hand asks for 0644; the folder's default ACL makes it 0640 all the same.
stat -c %a "$drop/mallory-03-stream-overlap.json" | grep -qx 640 || fail "a run copied in by hand is not mode 640"
as bob cat "$drop/mallory-03-stream-overlap.json" >/dev/null 2>&1 && fail "bob could read the run mallory copied in by hand"
no_acl=$scratch/no-acl
install -d -m 3733 -o 0 -g "$staff" "$no_acl"
err=$(as bob env CUDALAB_CLASS_DIR="$no_acl" "$cudalab" submit run.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == *"its default ACL does not hide new files from others"* ]] ||
  fail "submit into a folder without the default ACL was not refused in one line: $err"
open_drop=$scratch/open-drop
install -d -m 1777 "$open_drop"
err=$(as bob env CUDALAB_CLASS_DIR="$open_drop" "$cudalab" submit run.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == *"is not safe to hand runs into"* ]] ||
  fail "submit into a folder anyone may list was not refused in one line: $err"
err=$(cd "$scratch/bob" && setpriv --reuid=10002 --regid=10002 --groups="$staff" -- \
      env CUDALAB_CLASS_DIR="$drop" "$cudalab" submit run.json 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ $err == *"you are in its group"* ]] || fail "a member of the staff's group could hand in: $err"

# ── grade ───────────────────────────────────────────────────────────────────────────────────────
grade() { (cd "$scratch" && NO_COLOR=1 COLUMNS=100 "$class_cudalab" grade --config class.toml "$@"); }
grade >"$scratch/grade.txt"
[ $? -eq 1 ] || fail "grade of a class with flagged runs did not exit 1"
cat "$scratch/grade.txt"
grep -q "node $(hostname)" "$scratch/grade.txt" || fail "grade does not show the node on each row"
grade --format csv >"$scratch/runs.csv"
grade --gradebook --format csv --bom >"$scratch/gradebook.csv"
python3 - "$scratch/runs.csv" "$scratch/gradebook.csv" <<'EOF' || fail "the CSVs do not hold what grade must find"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
by_student = {}
for row in rows:
    by_student.setdefault(row["student"], []).append(row)
expected = {  # student -> (passes, a reason every one of their rows must give)
    "uid 10001": (True, ""), "uid 10002": (True, ""), "uid 10003": (True, ""),
    "uid 10004": (False, "a copy of the built-in reference run 04-priority"),
    "uid 10005": (False, "handed in by uid 10006 (the same run id)"),
    "uid 10006": (False, "made by uid 10005, handed in by uid 10006"),
    "uid 10007": (False, "its name says lesson 03, but it holds lesson 05 callbacks"),
    "uid 10008": (False, "modified: its digest does not match its contents"),
    "uid 10009": (False, "made by a build with uncommitted changes"),
    "uid 10010": (False, "param streams=8, not the assigned 4"),
    "uid 10011": (False, "its seal does not match its contents"),
    "uid 10012": (False, "carries no class seal"),
    "uid 10013": (False, "after it was due at"),
    "uid 10014": (True, ""),
}
problems = []
for student, (passes, reason) in expected.items():
    for row in by_student.get(student, []) or [{"passes": "missing", "problems": "no row"}]:
        if row["passes"] != ("1" if passes else "0") or reason not in row["problems"]:
            problems.append(f"{student} {row.get('file')}: passes={row['passes']} problems={row['problems']!r}")
    for row in by_student.get(student, []):
        int(row["verify_passed"]), int(row["verify_total"]), int(row["lesson"])  # numbers in number columns
if set(by_student) != set(expected):
    problems.append(f"students {sorted(by_student)}")
raw = open(sys.argv[2], "rb").read()
if not raw.startswith(b"\xef\xbb\xbf"):
    problems.append("--bom wrote no byte-order mark")
book = list(csv.DictReader(open(sys.argv[2], newline="", encoding="utf-8-sig")))
if sorted(r["student"] for r in book) != sorted(expected):
    problems.append(f"gradebook rows {[r['student'] for r in book]}")
for r in book:
    honest = r["student"] in ("uid 10001", "uid 10002", "uid 10003", "uid 10014")
    want = {"uid 10003": ("1", "1")}.get(r["student"], ("1", "") if honest else None)
    got = (r["03 stream-overlap"], r["05 callbacks"])
    if (want is not None and got != want) or (want is None and "1" in got) or r["lessons"] != "2":
        problems.append(f"gradebook {r}")
print("\n".join(problems) or "class_grade_test: every flag and every gradebook cell as expected")
sys.exit(1 if problems else 0)
EOF

# A grace of an hour: peggy's hand-in, seconds late, is in time; nobody else's verdict changes.
sed -i "s/^due = .*/&\ngrace_minutes = 60/" "$scratch/class.toml"
grade --format csv >"$scratch/graced.csv"
python3 - "$scratch/runs.csv" "$scratch/graced.csv" <<'EOF' || fail "the grace did not pass peggy alone"
import csv, sys
before, after = ({r["file"]: r for r in csv.DictReader(open(f, newline="", encoding="utf-8"))} for f in sys.argv[1:])
changed = sorted(f"{r['student']}: {r['passes']}" for f, r in after.items() if before[f]["passes"] != r["passes"])
if changed != ["uid 10013: 1"]:
    sys.exit(f"with grace_minutes = 60, the changed verdicts are {changed}")
EOF

# A roster: every student on it is a gradebook row with the LMS's ids, and one who handed nothing
# in (uid 10015) is named on stderr.
printf 'user,SIS User ID,name,email\n"uid 10001",S-1,Alice,alice@uni.example\n"uid 10015",S-15,"Quinn, Q.",quinn@uni.example\n' \
  >"$scratch/students.csv"
sed -i 's/^due = .*/&\nroster = "students.csv"/' "$scratch/class.toml"
err=$(grade --gradebook --format csv 2>&1 >"$scratch/roster.csv")
[[ $err == *"students on the roster lack an assigned lesson: uid 10001 (05), uid 10015 (03 05)"* ]] ||
  fail "grade did not name the rostered student with no hand-in: $err"
grep -qx 'uid 10015,S-15,"Quinn, Q.",quinn@uni.example,,,0,2' "$scratch/roster.csv" ||
  fail "the gradebook has no row for the rostered student with no hand-in: $(cat "$scratch/roster.csv")"
grep -q '^uid 10001,S-1,Alice,alice@uni.example,1,,1,2$' "$scratch/roster.csv" ||
  fail "the gradebook row of a rostered student lacks the LMS's ids: $(cat "$scratch/roster.csv")"

# Gradescope grades one submission (alice's folder) against the assignment's lessons, and refuses
# to grade without them: one run would be full marks.
out=$(grade "$scratch/alice" --format gradescope 2>/dev/null)
python3 -c 'import json, sys; r = json.loads(sys.argv[1]); assert [t["name"] for t in r["tests"]][:2] == ["03 stream-overlap", "05 callbacks"], r; assert "graded alone" in r["output"], r' "$out" ||
  fail "gradescope's results for alice's folder are not one test per assigned lesson: $out"
printf '[grade]\ndrop = "%s"\n' "$drop" >"$scratch/no-lessons.toml"
err=$(cd "$scratch" && "$class_cudalab" grade --config no-lessons.toml --format gradescope 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == *"give the assignment's lessons"* ]] ||
  fail "gradescope without the assignment's lessons was not refused in one line: $err"

# victor hands in 501 empty .json files: his row alone fails, naming the limit; the class is graded.
as victor sh -c "for i in \$(seq 501); do : >\"$drop/junk-\$i.json\"; done" || fail "victor could not write his junk"
grade --format csv >"$scratch/junk.csv" 2>/dev/null
python3 - "$scratch/graced.csv" "$scratch/junk.csv" <<'EOF' || fail "one student's junk did more than fail his own row"
import csv, sys
before, after = ({r["file"]: r for r in csv.DictReader(open(f, newline="", encoding="utf-8"))} for f in sys.argv[1:])
victor = [r for r in after.values() if r["student"] == "uid 10016"]
if len(victor) != 1 or victor[0]["passes"] != "0" or "501 .json files handed in by one student, over the limit of 500" not in victor[0]["problems"]:
    sys.exit(f"victor's rows: {victor}")
others = {f: r["passes"] for f, r in after.items() if r["student"] != "uid 10016"}
if others != {f: r["passes"] for f, r in before.items()}:
    sys.exit("the other students' verdicts changed")
EOF

# ── the class's install as a student sees it ────────────────────────────────────────────────────
out=$(as bob "$class_cudalab" class check) || fail "class check of the setgid install did not pass: $out"
for line in "held, key" "every gid of this process is 10002" "not dumpable" "cannot read"; do
  [[ $out == *"$line"* ]] || fail "class check does not say '$line': $out"
done
out=$(as bob "$cudalab" class check 2>&1) && fail "class check of a build without the key passed: $out"
[[ $out == *"none held"* ]] || fail "class check of a build without the key does not say so: $out"
as bob cat "$prefix/etc/cudalab/class.key" >/dev/null 2>&1 && fail "bob could read the class key"
# The running class cudalab (show, waiting for Enter on a terminal) is bob's process, yet bob can
# neither open its memory nor ptrace it; its gids are all bob's.
as bob python3 - "$class_cudalab" <<'EOF' || fail "bob could reach the running class cudalab"
import ctypes, os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "show", "03", "--pause"])
seen, end = b"", time.time() + 20
while b"\xe2\x8f\x8e" not in seen and time.time() < end:  # the pause's ⏎
    if select.select([fd], [], [], 1)[0]:
        seen += os.read(fd, 65536)
problems = []
if b"\xe2\x8f\x8e" not in seen:
    problems.append("show --pause never waited for Enter")
status = open(f"/proc/{pid}/status").read()
gid_line = next(l for l in status.splitlines() if l.startswith("Gid:"))
if gid_line.split()[1:] != ["10002"] * 4:
    problems.append(f"its {gid_line}")
if os.stat(f"/proc/{pid}/mem").st_uid != 0:
    problems.append("its /proc/PID/mem is not root's (the process is dumpable)")
try:
    os.close(os.open(f"/proc/{pid}/mem", os.O_RDONLY))
    problems.append("bob opened its /proc/PID/mem")
except PermissionError:
    pass
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
    problems.append("bob attached to it with ptrace")
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.exit("; ".join(problems) or None)
EOF
echo "class_grade_test: grade flagged each dishonest run with its reason and passed only the honest ones"

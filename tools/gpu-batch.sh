#!/usr/bin/env bash
# The lab-GPU session in batches (nothing is built there). Logs and runs go to $OUT as tarballs.
#   tools/gpu-batch.sh BUILD_DIR tests     CTest's GPU tests and the unit tests (UNIT=0: GPU tests only)
#   tools/gpu-batch.sh BUILD_DIR record    every lesson recorded as a reference run (flags from
#                                          lessons/NN-slug/reference-args.txt), zh text, --stable
#                                          three times, --portable against the old reference, all,
#                                          predict mode, SVGs, odd values
#   tools/gpu-batch.sh BUILD_DIR sanitize  every lesson under compute-sanitizer (tests/sanitize.sh)
#   tools/gpu-batch.sh BUILD_DIR class     a class on one GPU: tools/class-sim.sh 8 03 and 8 02, with
#                                          and without --no-queue; a student SIGKILLed while it holds
#                                          the GPU; five lone processes of every lesson against the built-in
#                                          references, with each lesson's GPU time per turn, and
#                                          `list --times` of the turns the queue learned
#   tools/gpu-batch.sh BUILD_DIR tenants   a class of 8 of 03 beside an idle tenant, a busy one,
#                                          Ctrl-Z and kill -STOP on the first holder (docs/lab-gpu.md)
#   tools/gpu-batch.sh BUILD_DIR peers     nvbandwidth's pinned host<->device copies and cuda-samples'
#                                          simpleStreams, then 02 and 03, in one session (PEERS=DIR
#                                          holds the two binaries, built elsewhere for this GPU)
#   tools/gpu-batch.sh BUILD_DIR sealed    a class of 8 real users of 03 with the class's setgid
#                                          install and --submit: six honest, one resealed forgery,
#                                          one late; then grade and each hand-in's --stable head
#   tools/gpu-batch.sh BUILD_DIR rerun     the same class hands in exercise 03 (own code, the shipped
#                                          solution, one source twice, a mistake, a snoop), then
#                                          grade --rerun --feedback as a grader of the staff group
#   tools/gpu-batch.sh BUILD_DIR exercise  every exercise: its GPU tests (solution, starter, each mistake
#                                          in exercise/cases), five checks of its solution with the
#                                          compile time and the GPU turn, and memcheck of the
#                                          solution's run (the child process too)
# LESSONS="08" limits record and sanitize to those lessons (by number); LONE does so for class.
# CLASS_SIZE (default 8) is the class for class mode; CLASS_LESSONS its lessons (default 03 02).
set -u
build=${1:?build dir}
mode=${2:-record}
out=${OUT:-/tmp/cudalab-out}
mkdir -p "$out/logs" "$out/runs"
# On the GPU machine the build travels as .device/BUILD_DIR (tools/stage-device.sh), and CTest's
# files name the folders it was built in here: make both paths lead to this checkout.
[ -e "$build" ] || [ ! -d ".device/$build" ] || ln -s ".device/$build" "$build"
built_in=$(sed -n 's/^# Source directory: //p' "$build/CTestTestfile.cmake" 2>/dev/null)
if [ -n "$built_in" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$PWD" "$built_in"
fi
# The copy may not keep modification times: GoogleTest's discovered lists must stay newer than
# the test binaries, or ctest would try to discover them again (with a CMake this machine lacks).
find -L "$build" -name '*_tests.cmake' -exec touch {} + 2>/dev/null
bin=$build/cudalab
export NO_COLOR=1
# The lessons this build holds, "NN-slug" a line, as the binary lists them: the registry is the
# only list of lessons (a folder of lessons/ the build left out is not run).
lesson_ids() {
  "$bin" list --format json | python3 -c 'import json, sys
for lesson in json.load(sys.stdin)["lessons"]: print(lesson["id"])'
}
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv
} >"$out/logs/machine.txt" 2>&1
pack() { tar -C "$out" -czf "$out/$1.tgz" logs runs && rm -rf "$out/logs" "$out/runs"; }

# The class's setgid install in /opt/cudalab-class (docs/grade.md, "The class seal"), its drop
# folder (3733, default ACL), a class preset of lesson 03 on this GPU, and 8 student users, each
# with a home under $work; `as USER CMD...` runs CMD as that user from their home.
install_class() {
  prefix=/opt/cudalab-class  # off /tmp, which may be mounted nosuid
  getent group cudalab-class >/dev/null || groupadd cudalab-class
  getent group cudalab-staff >/dev/null || groupadd cudalab-staff
  rm -rf "$prefix" && install -d -m 755 "$prefix/bin" "$prefix/etc/cudalab"
  head -c 32 /dev/urandom >"$prefix/etc/cudalab/class.key"
  chown root:cudalab-class "$prefix/etc/cudalab/class.key" && chmod 0440 "$prefix/etc/cudalab/class.key"
  install -m 2755 -o root -g cudalab-class "$bin" "$prefix/bin/cudalab"
  install -m 755 "$build/tests/cudalab_class_fake" "$prefix/bin/reseal"
  drop=$prefix/inbound
  install -d -m 3733 -o root -g cudalab-staff "$drop"
  # Its default ACL (u::rw,g::r,o::-): setfacl where the machine has it (Debian: acl), else the
  # same ACL written as the kernel keeps it (the system.posix_acl_default attribute: version 2,
  # then tag, permissions and id for the owner, the group and others).
  setfacl -d -m u::rw,g::r,o::- "$drop" 2>/dev/null || python3 -c 'import os, struct, sys
os.setxattr(sys.argv[1], "system.posix_acl_default", struct.pack("<I", 2) + b"".join(
    struct.pack("<HHI", tag, perm, 0xFFFFFFFF) for tag, perm in ((0x01, 6), (0x04, 4), (0x20, 0))))' "$drop" ||
    { echo "gpu-batch: sealed: could not give the drop folder its default ACL" >&2; exit 1; }
  work=$(mktemp -d) && chmod 755 "$work"
  mkdir -p -m 1777 "${CUDALAB_QUEUE_DIR:-/tmp/cudalab-queue}"
  gpu=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 | tr -d ' ')
  cat >"$work/class.toml" <<EOF
[grade]
drop = "$drop"
lessons = ["03"]
gpus = ["$gpu"]
opens = $(date -u -d '-1 hour' +%FT%TZ)
due = 2999-01-01T00:00:00Z
EOF
  as() { local who=$1; shift; (cd "$work/$who" && setpriv --reuid="$who" --regid="$who" --clear-groups -- env HOME="$work/$who" CUDALAB_CLASS_DIR="$drop" NO_COLOR=1 "$@"); }
  for i in 1 2 3 4 5 6 7 8; do
    id "cudalab-s$i" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "cudalab-s$i"
    install -d -m 700 -o "cudalab-s$i" -g "cudalab-s$i" "$work/cudalab-s$i"
  done
}

case "$mode" in
sanitize)
  echo "== compute-sanitizer"
  tests/sanitize.sh "$bin" 2>&1 | tee "$out/logs/sanitize.txt" | grep -v "^    " | tail -n 40
  pack sanitize
  exit 0 ;;
tests)
  echo "== ctest -L gpu"
  (cd "$build" && ctest -L gpu --output-on-failure --timeout 300) >"$out/logs/ctest-gpu.txt" 2>&1
  grep -E "tests passed|Failed|\*\*\*" "$out/logs/ctest-gpu.txt" | tail -n 15
  if [ "${UNIT:-1}" = 1 ]; then  # UNIT=0: the GPU tests only
    echo "== unit tests on the GPU machine"
    (cd "$build" && ctest -LE gpu --output-on-failure -j "$(nproc)") >"$out/logs/ctest-unit.txt" 2>&1
    grep -E "tests passed|Failed" "$out/logs/ctest-unit.txt" | tail -n 4
  fi
  pack tests
  exit 0 ;;
class)
  export CUDALAB=$bin
  for lesson in ${CLASS_LESSONS-03 02}; do
    for queue in "" --no-queue; do
      echo "== tools/class-sim.sh ${CLASS_SIZE:-8} $lesson $queue"
      # shellcheck disable=SC2086
      CLASS_SIM_KEEP="$out/runs/class-$lesson$queue" tools/class-sim.sh "${CLASS_SIZE:-8}" "$lesson" $queue 2>&1 |
        tee "$out/logs/class-$lesson$queue.txt" | grep -v "runs kept"
    done
  done
  if [ -n "${SKIP_KILL:-}" ]; then :; else
  echo "== SIGKILL: student A holds the GPU, B waits, A is killed"
  "$bin" 03 --repeat 2000 --json "$out/runs/kill-a.json" >"$out/logs/kill-a.txt" 2>&1 & a=$!
  sleep 2
  b_start=$(date +%s.%N)
  "$bin" 03 --json "$out/runs/kill-b.json" >"$out/logs/kill-b.txt" 2>&1 & b=$!
  sleep 1
  kill -KILL $a; killed=$(date +%s.%N)
  wait $a; echo "A: exit $? (137 = SIGKILL)"
  wait $b; echo "B: exit $?"
  grep -m1 -i "queue\|turn" "$out/logs/kill-b.txt" | sed 's/^/    B said: /'
  python3 - "$out/runs/kill-b.json" "$b_start" "$killed" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
q = run.get("queue") or {}
start, killed = float(sys.argv[2]), float(sys.argv[3])
got = start + q.get("wait_s", 0)
print(f"B waited {q.get('wait_s', 0):.3f} s at position {q.get('position')}; it got the GPU {got - killed:+.3f} s after A was killed")
PY
  fi
  # Against the built-in reference, or against the runs `record` just wrote (BASELINES=DIR holding
  # NN-slug.json), when the references are being re-recorded in the same session.
  echo "== five lone processes of each lesson, compared with ${BASELINES:-the built-in reference}"
  for s in $(lesson_ids); do
    n=${s%%-*}
    case " ${LONE:-$n} " in *" $n "*) ;; *) continue ;; esac
    baseline=$n
    [ -n "${BASELINES:-}" ] && baseline=$BASELINES/$s.json
    for i in 1 2 3 4 5; do
      "$bin" "$n" --json "$out/runs/lone-$n-$i.json" >"$out/logs/lone-$n-$i.txt" 2>&1
      "$bin" compare "$baseline" "$out/runs/lone-$n-$i.json" >"$out/logs/lone-$n-$i.compare.txt" 2>&1
      echo $? >"$out/logs/lone-$n-$i.compare.rc"
    done
  done
  LONE=${LONE:-$(lesson_ids | sed 's/-.*//' | tr '\n' ' ')} python3 - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
print(f"{'lesson':7} {'headline':34} {'five lone processes':36} {'compare exits':14} {'GPU s/turn (median)':>20}")
for n in os.environ["LONE"].split():
    runs, rcs = [], []
    for i in range(1, 6):
        try:
            runs.append(json.load(open(f"{out}/runs/lone-{n}-{i}.json")))
        except (OSError, ValueError):
            runs.append(None)
        try:
            rcs.append(open(f"{out}/logs/lone-{n}-{i}.compare.rc").read().strip())
        except OSError:
            rcs.append("?")
    heads = {}
    for run in filter(None, runs):
        for key in run.get("headline_metrics") or []:
            for sec in run.get("sections") or []:
                for m in sec.get("metrics") or []:
                    if m.get("key") in (key, f"{sec.get('key')}.{m.get('key')}"):
                        heads.setdefault(key, []).append((m.get("median"), m.get("unit") or ""))
    held = [r["queue"]["held_s"] for r in runs if r and isinstance(r.get("queue"), dict)]
    for i, r in enumerate(runs, 1):
        for reason in (r or {}).get("disturbance") or []:
            # A reason is a message of the run's (template, args, en): its English text is enough here.
            text = reason.get("en", reason) if isinstance(reason, dict) else reason
            print(f"        {n} process {i}: disturbed: {text}")
    first = True
    for key, values in heads.items():
        nums = [v for v, _ in values if isinstance(v, (int, float))]
        unit = values[0][1]
        spread = f"{min(nums):.4g}-{max(nums):.4g} {unit}" if nums else "-"
        print(f"{n if first else '':7} {key:34} {spread:36} {' '.join(rcs) if first else '':14} "
              f"{(f'{statistics.median(held):.2f}' if held and first else ''):>20}")
        first = False
PY
  # What the queue learned from those turns, and what a fresh queue folder falls back to.
  echo "== cudalab list --times (the turns learned above)"
  COLUMNS=100 "$bin" list --times | tee "$out/logs/list-times.txt" | sed -n '/GPU time per turn/,$p'
  cp -r "${CUDALAB_QUEUE_DIR:-/tmp/cudalab-queue}" "$out/logs/queue-folder" 2>/dev/null
  echo "== cudalab list --times, a fresh queue folder"
  fresh=$(mktemp -d)
  CUDALAB_QUEUE_DIR=$fresh COLUMNS=100 "$bin" list --times | tee "$out/logs/list-times-fresh.txt" | sed -n '/GPU time per turn/,$p'
  rm -rf "$fresh"
  pack class
  exit 0 ;;
exercise)
  echo "== ctest -R gpu.exercise"
  (cd "$build" && ctest -R 'gpu\.exercise' --output-on-failure --timeout 120) >"$out/logs/ctest-exercise.txt" 2>&1
  grep -E "tests passed|Failed|\*\*\*|Passed|Skipped" "$out/logs/ctest-exercise.txt" | tail -n 20
  for n in $("$bin" exercise list --dir "$out/logs/list" | sed -n 's/^  \([0-9][0-9]\)  .*/\1/p'); do
    dir=$out/logs/solution-$n
    "$bin" exercise "$n" --dir "$dir" >/dev/null 2>&1
    cp lessons/"$n"-*/exercise/solution.cu "$dir"/"$n"-*.cu
    for i in 1 2 3 4 5; do
      start=$(date +%s%N)
      "$bin" exercise "$n" --dir "$dir" --json "$out/runs/exercise-$n-$i.json" >"$out/logs/exercise-$n-$i.txt" 2>&1
      echo "exercise $n, solution, check $i: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms; $(grep -m1 'compiled in' "$out/logs/exercise-$n-$i.txt")"
    done
    python3 - "$out/runs" "$n" <<'PY'
import json, sys, statistics
runs = [json.load(open(f"{sys.argv[1]}/exercise-{sys.argv[2]}-{i}.json")) for i in range(1, 6)]
held = [r["queue"]["held_s"] for r in runs]
print(f"exercise {sys.argv[2]}: GPU turn held {min(held):.2f}-{max(held):.2f} s (median {statistics.median(held):.2f})")
for r in runs:
    print("   ", r["headline"].get("en") if isinstance(r["headline"], dict) else r["headline"],
          "|", " ".join(f"{c['key']}={'pass' if c['passed'] else 'FAIL'}" for c in r["checks"] if c["key"].startswith("exercise")))
PY
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    "$sanitizer" --tool memcheck --leak-check full --target-processes all --error-exitcode 99 \
      "$bin" exercise "$n" --dir "$dir" --time-limit 120 $(head -n 1 lessons/"$n"-*/smoke-args.txt 2>/dev/null) --format json \
      >"$out/logs/memcheck-exercise-$n.json" 2>"$out/logs/memcheck-exercise-$n.txt"
    echo "memcheck of exercise $n's solution (child included): exit $?; $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$out/logs/memcheck-exercise-$n.txt" "$out/logs/memcheck-exercise-$n.json" | tr '\n' ' ')"
  done
  pack exercise
  exit 0 ;;
tenants)
  export CUDALAB=$bin
  for stage in CLASS_SIM_TENANT=idle CLASS_SIM_TENANT=kernels CLASS_SIM_CTRL_Z=3 CLASS_SIM_STOP=3; do
    echo "== $stage tools/class-sim.sh 8 03"
    env "$stage" CLASS_SIM_KEEP="$out/runs/${stage#CLASS_SIM_}" tools/class-sim.sh 8 03 2>&1 |
      tee "$out/logs/${stage#CLASS_SIM_}.txt" | grep -v "runs kept"
  done
  pack tenants
  exit 0 ;;
sealed)
  # A class of 8 real users on the lab GPU with the class's setgid install (docs/grade.md, "The
  # class seal"): six honest students hand in with --submit, one reseals an edited run (and puts it
  # in the drop folder by hand when submit refuses it), one hands in after the due time; then
  # `grade`, run as the grader with the class's cudalab. The forger uses the test-only stand-in
  # (cudalab_class_fake --reseal), which recomputes the digest as any script can.
  install_class
  echo "== class check, as a student"
  as cudalab-s1 "$prefix/bin/cudalab" class check 2>&1 | tee "$out/logs/class-check.txt"
  as cudalab-s1 cat "$prefix/etc/cudalab/class.key" >/dev/null 2>&1 && echo "!! a student read the class key"
  echo "== 8 students of 03 at once"
  for i in 1 2 3 4 5 6; do
    as "cudalab-s$i" "$prefix/bin/cudalab" 03 --json run.json --submit >"$out/logs/student$i.txt" 2>&1 &
  done
  for i in 7 8; do as "cudalab-s$i" "$prefix/bin/cudalab" 03 --json run.json >"$out/logs/student$i.txt" 2>&1 & done
  wait
  for i in 1 2 3 4 5 6 7 8; do echo "student $i: $(grep -E '^handed in|^(✓|✗)' "$out/logs/student$i.txt" | head -n 3 | tr '\n' ' ')"; done
  as cudalab-s7 python3 -c 'import json
run = json.load(open("run.json"))
for section in run["sections"]:
    for metric in section.get("metrics", []):
        metric["samples"] = [s * (1 + 1e-12) for s in metric.get("samples", [])]
json.dump(run, open("run.json", "w"), indent=2)'
  as cudalab-s7 "$prefix/bin/reseal" --reseal run.json
  echo "forger's submit: $(as cudalab-s7 "$prefix/bin/cudalab" submit run.json 2>&1; echo "exit $?")"
  as cudalab-s7 cp run.json "$drop/cudalab-s7-03.json"
  sleep 1; due=$(date -u +%FT%TZ); sleep 2
  sed -i "s/^due = .*/due = $due/" "$work/class.toml"
  echo "late submit: $(as cudalab-s8 "$prefix/bin/cudalab" submit run.json 2>&1; echo "exit $?")"
  cp "$work/class.toml" "$out/logs/class.toml"
  echo "== grade (the grader, with the class's cudalab)"
  (cd "$work" && COLUMNS=120 "$prefix/bin/cudalab" grade --config class.toml) >"$out/logs/grade.txt" 2>&1
  echo "grade: exit $?"; cat "$out/logs/grade.txt"
  (cd "$work" && "$prefix/bin/cudalab" grade --config class.toml --format csv) >"$out/logs/grade.csv" 2>&1
  for f in "$drop"/*; do
    echo "== show --stable $(basename "$f") | head -n 4"
    "$prefix/bin/cudalab" show "$f" --stable 2>&1 | head -n 4
  done | tee "$out/logs/show-stable.txt"
  cp "$drop"/* "$out/runs/"
  pack sealed
  exit 0 ;;
rerun)
  # Exercise 03 graded by re-running it (docs/grade.md, "Exercises graded by re-running them"): 8
  # real users hand in with --submit from the class's setgid install. s1-s4 and s6 each write their
  # own pipeline (the solution with a line of their own), s5 hands in the shipped solution with a
  # comment on top, s7 s6's source in another layout, s8 a mistake (an illegal address). s4's file
  # also tries, when it is loaded, to write into the grader's home and list the drop folder. The
  # grader, a user of the staff group, grades with the class's cudalab, --rerun and --feedback.
  install_class
  grader=cudalab-grader
  id "$grader" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin -G cudalab-staff "$grader"
  install -d -m 700 -o "$grader" -g "$grader" "$work/$grader"
  chown "$grader" "$drop"  # the instructor's drop folder: theirs to list, hand-ins readable by the staff group
  as_grader() { (cd "$work/$grader" && setpriv --reuid="$grader" --regid="$grader" --init-groups -- env HOME="$work/$grader" NO_COLOR=1 "$@"); }
  ex=$PWD/lessons/03-stream-overlap/exercise
  src=$work/sources && mkdir -p "$src" && chmod 755 "$src"
  for i in 1 2 3 4 6; do { cat "$ex/solution.cu"; echo "static const int my_student_number = $i;"; } >"$src/s$i.cu"; done
  printf '%s\n' '#include <cstdio>' '#include <dirent.h>' \
    '__attribute__((constructor)) static void snoop() {' \
    "  FILE* f = std::fopen(\"$work/$grader/snooped\", \"w\");" \
    '  if (f == nullptr) return;' \
    "  DIR* d = opendir(\"$drop\");" \
    '  for (dirent* e; d != nullptr && (e = readdir(d)) != nullptr;) std::fprintf(f, "%s\n", e->d_name);' \
    '  std::fclose(f);' '}' >>"$src/s4.cu"
  { echo "// my own pipeline, honest"; cat "$ex/solution.cu"; echo; } >"$src/s5.cu"
  sed 's/  */ /g; s/$/   /' "$src/s6.cu" >"$src/s7.cu"
  cp "$ex/cases/illegal_address.cu" "$src/s8.cu"
  chmod 644 "$src"/*.cu
  for i in 1 2 3 4 5 6 7 8; do
    as "cudalab-s$i" "$prefix/bin/cudalab" exercise 03 --dir ex >/dev/null 2>&1
    as "cudalab-s$i" cp "$src/s$i.cu" ex/03-stream-overlap.cu
  done
  echo "== 8 students hand in exercise 03 at once"
  start=$(date +%s)
  for i in 1 2 3 4 5 6 7 8; do
    as "cudalab-s$i" "$prefix/bin/cudalab" exercise 03 --dir ex --json run.json --submit >"$out/logs/student$i.txt" 2>&1 &
  done
  wait
  echo "the class's hand-ins took $(( $(date +%s) - start )) s"
  for i in 1 2 3 4 5 6 7 8; do echo "student $i: $(grep -E 'handed in|exercise_(ran|correct|done)' "$out/logs/student$i.txt" | head -n 4 | tr '\n' ' ')"; done
  cp "$work/class.toml" "$out/logs/class.toml"
  echo "== grade --rerun --feedback (the grader, with the class's cudalab)"
  start=$(date +%s)
  as_grader env COLUMNS=120 "$prefix/bin/cudalab" grade --config "$work/class.toml" --rerun --feedback feedback >"$out/logs/grade.txt" 2>&1
  echo "grade --rerun: exit $? in $(( $(date +%s) - start )) s"; cat "$out/logs/grade.txt"
  as_grader "$prefix/bin/cudalab" grade --config "$work/class.toml" --format csv >"$out/logs/grade-without-rerun.csv" 2>&1
  if [ -e "$work/$grader/snooped" ]; then echo "!! s4's code wrote into the grader's home:"; cat "$work/$grader/snooped"; else echo "s4's code did not reach the grader's home"; fi
  cp -r "$work/$grader/feedback" "$out/logs/feedback" 2>/dev/null
  echo "== feedback of s4 and s8"; cat "$out/logs/feedback/cudalab-s4.md" "$out/logs/feedback/cudalab-s8.md" 2>&1
  [ -z "$(ls -A "$drop")" ] || cp "$drop"/* "$out/runs/"
  pack rerun
  exit 0 ;;
peers)
  peers=${PEERS:?PEERS=DIR with nvbandwidth and simpleStreams}
  echo "== nvbandwidth: pinned host<->device copies (copy engines)"
  "$peers/nvbandwidth" -t host_to_device_memcpy_ce device_to_host_memcpy_ce \
    host_to_device_bidirectional_memcpy_ce >"$out/logs/nvbandwidth.txt" 2>&1
  echo "nvbandwidth: exit $?"; grep -E "^Running|SUM|^ +0 +[0-9]" "$out/logs/nvbandwidth.txt"
  echo "== simpleStreams"
  "$peers/simpleStreams" >"$out/logs/simpleStreams.txt" 2>&1
  echo "simpleStreams: exit $?"; grep -iE "time|streams|elapsed" "$out/logs/simpleStreams.txt" | head -n 12
  for n in 02 03; do
    "$bin" "$n" --json "$out/runs/peers-$n.json" >"$out/logs/peers-$n.txt" 2>&1
    echo "cudalab $n: exit $?"; grep -E "GB/s|speed-up|×" "$out/logs/peers-$n.txt" | head -n 8
  done
  pack peers
  exit 0 ;;
esac

for s in $(lesson_ids); do
  n=${s%%-*} folder=lessons/$s
  case " ${LESSONS:-$n} " in *" $n "*) ;; *) continue ;; esac
  args=$(cat "$folder/reference-args.txt" 2>/dev/null)
  echo "== $s $args"
  # shellcheck disable=SC2086
  "$bin" "$n" $args --color never --json "$out/runs/$s.json" >"$out/logs/$s.txt" 2>&1
  rc=$?
  echo "exit $rc" >>"$out/logs/$s.txt"
  grep -E "^(✓|✗)|^exit|^warning|^setting +!|waived" "$out/logs/$s.txt" | head -n 40
  [ $rc -eq 77 ] && continue  # not for this machine (lesson 10 on one GPU)
  "$bin" show "$out/runs/$s.json" --lang zh --color never >"$out/logs/$s.zh.txt" 2>&1
  "$bin" show "$out/runs/$s.json" --svg "$out/logs/svg" >/dev/null 2>>"$out/logs/svg.txt"
  for i in 1 2 3; do "$bin" "$n" --stable >"$out/logs/$s.stable$i.txt" 2>&1; done
  if cmp -s "$out/logs/$s.stable1.txt" "$out/logs/$s.stable2.txt" && cmp -s "$out/logs/$s.stable1.txt" "$out/logs/$s.stable3.txt"; then
    echo "stable: 3 runs byte-identical"
  else
    echo "stable: DIFFERENT"; diff "$out/logs/$s.stable1.txt" "$out/logs/$s.stable2.txt"; diff "$out/logs/$s.stable1.txt" "$out/logs/$s.stable3.txt"
  fi
  if [ -f "course-notes/runs/$s.json" ]; then
    "$bin" compare "course-notes/runs/$s.json" "$out/runs/$s.json" >"$out/logs/$s.compare.txt" 2>&1
    echo "compare with the old reference: exit $?"
    grep -E "^\*|holds" "$out/logs/$s.compare.txt" | head -n 8
    # shellcheck disable=SC2086
    "$bin" "$n" $args --portable >"$out/logs/$s.portable.txt" 2>&1
    "$bin" show "course-notes/runs/$s.json" --portable >"$out/logs/$s.portable-ref.txt" 2>&1
    if cmp -s "$out/logs/$s.portable.txt" "$out/logs/$s.portable-ref.txt"; then
      echo "portable: byte-identical to the reference's"
    else
      echo "portable: DIFFERENT"; diff "$out/logs/$s.portable-ref.txt" "$out/logs/$s.portable.txt" | head -n 10
    fi
  fi
done

echo "== cudalab all"
start=$(date +%s%N)
"$bin" all --json "$out/logs/all.json" >"$out/logs/all.txt" 2>&1
echo "all: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms"

echo "== predict first"
printf 'speedup.depth_first = 3\nlecture.total = 3\nlecture.overlap = 1.1\n' >"$out/logs/answers.txt"
"$bin" 03 --predict --answers "$out/logs/answers.txt" --json "$out/logs/predict.json" >"$out/logs/predict.txt" 2>&1
echo "03 --predict --answers: exit $?"; grep -A3 "your predictions" "$out/logs/predict.txt"

echo "== 03 at 8 streams, and with one hardware queue"
"$bin" 03 --streams 8 --json "$out/logs/03-streams8.json" >"$out/logs/03-streams8.txt" 2>&1; echo "03 --streams 8: exit $?"
grep -E "^  (depth|breadth)-first \(" "$out/logs/03-streams8.txt"
CUDA_DEVICE_MAX_CONNECTIONS=1 "$bin" 03 >"$out/logs/03-connections1.txt" 2>&1; echo "03 with CUDA_DEVICE_MAX_CONNECTIONS=1: exit $?"
grep -E "^  (depth|breadth)-first \(|hardware queues" "$out/logs/03-connections1.txt"

echo "== live mode, scripted: streams 8, then size 16MiB"
printf 'streams 8\nsize 16MiB\nquit\n' | "$bin" live 03 >"$out/logs/live-03.txt" 2>&1; echo "live 03: exit $?"
grep -A8 "this run" "$out/logs/live-03.txt" | head -n 24

echo "== odd values"
for args in "03 --streams 8" "03 --streams 1" "03 --size 900GiB" "04 --priority -100" "01 --device 7" "03 --repeat 0"; do
  # shellcheck disable=SC2086
  "$bin" $args >"$out/logs/odd.txt" 2>&1; echo "cudalab $args: exit $? $(grep -E 'speed-up|error|waived' "$out/logs/odd.txt" | head -n 1)"
done
CUDA_VISIBLE_DEVICES= "$bin" 03 2>&1 | head -n 2; echo "CUDA_VISIBLE_DEVICES='' 03: exit ${PIPESTATUS[0]}"
CUDA_LAUNCH_BLOCKING=1 "$bin" 03 --size 4MiB 2>&1 | grep -m1 "CUDA_LAUNCH_BLOCKING"
pack record

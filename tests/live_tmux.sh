#!/usr/bin/env bash
# Live mode in a real terminal: tmux runs the fake lesson's sitting, we type a change, read the
# screen and look for the comparison line; SIGTERM at the prompt ends it with 143; and the real
# binary without a GPU says in one line that it cannot measure here and exits 77.
#   tests/live_tmux.sh path/to/cudalab_live_fake [path/to/cudalab]
set -u
export TERM=${TERM:-xterm}
fake=${1:?path to cudalab_live_fake}
real=${2:-}
command -v tmux >/dev/null || { echo "live_tmux: tmux is not installed"; exit 1; }
session=cudalab-live-$$
# A session that only holds the server: tmux exits with its last session, and a sitting's
# session ends when the sitting does; the next new-session must not race that exit.
tmux -L "$session" new-session -d -s hold "sleep 120"
tmux -L "$session" new-session -d -s "$session" -x 100 -y 40 "$fake"
trap 'tmux -L "$session" kill-server 2>/dev/null' EXIT
wait_for() {
  for _ in $(seq 1 50); do
    tmux -L "$session" capture-pane -p -t "$session" | grep -q "$1" && return 0
    sleep 0.1
  done
  echo "live_tmux: never saw '$1'; the screen was:"; tmux -L "$session" capture-pane -p -t "$session"
  return 1
}
wait_for "live 03>" || exit 1
tmux -L "$session" send-keys -t "$session" "stre" Tab " 8" Enter   # Tab completes the name (libedit)
wait_for "×1.20" || exit 1
tmux -L "$session" send-keys -t "$session" "quit" Enter
for _ in $(seq 1 50); do tmux -L "$session" has-session -t "$session" 2>/dev/null || break; sleep 0.1; done
if tmux -L "$session" has-session -t "$session" 2>/dev/null; then
  echo "live_tmux: 'quit' did not end the sitting; the screen was:"; tmux -L "$session" capture-pane -p -t "$session"
  exit 1
fi
echo "live_tmux: typed a change, saw the comparison, quit ended the sitting"

# A signal at the prompt: the sitting ends at once with 143.
status=$(mktemp)
# set -m: the sitting gets a process group of its own, as under an interactive shell (libedit
# passes a signal on to its group once it has restored the terminal).
tmux -L "$session" new-session -d -s signal -x 100 -y 40 "set -m; $fake; echo \$? >$status; sleep 1"
for _ in $(seq 1 50); do
  pid=$(pgrep -n -f "^$fake\$" 2>/dev/null) && break
  sleep 0.1
done
[ -n "${pid:-}" ] || { echo "live_tmux: the second sitting never started"; exit 1; }
sleep 0.5  # at its prompt
kill -TERM "$pid"
for _ in $(seq 1 20); do [ -s "$status" ] && break; sleep 0.1; done
[ "$(cat "$status")" = 143 ] || { echo "live_tmux: SIGTERM at the prompt gave exit '$(cat "$status")', not 143"; exit 1; }
echo "live_tmux: SIGTERM at the prompt ended the sitting with 143"

# Without a GPU (the test machine has none), `cudalab live 03` in a terminal: one line, exit 77.
if [ -n "$real" ]; then
  if [ -e /dev/nvidiactl ]; then
    echo "live_tmux: this machine has a GPU; the no-GPU case is skipped"; exit 0
  fi
  screen=$(mktemp)
  tmux -L "$session" new-session -d -s nogpu -x 100 -y 40 "NO_COLOR=1 $real live 03 >$screen 2>&1; echo \$? >$status.real"
  for _ in $(seq 1 50); do [ -s "$status.real" ] && break; sleep 0.1; done
  code=$(cat "$status.real" 2>/dev/null)
  lines=$(wc -l <"$screen")
  [ "$code" = 77 ] || { echo "live_tmux: live 03 without a GPU exited '$code', not 77:"; cat "$screen"; exit 1; }
  [ "$lines" = 1 ] || { echo "live_tmux: live 03 without a GPU printed $lines lines, not 1:"; cat "$screen"; exit 1; }
  grep -q "cudalab show 03" "$screen" || { echo "live_tmux: the line does not point to cudalab show 03:"; cat "$screen"; exit 1; }
  echo "live_tmux: without a GPU, live 03 said: $(cat "$screen")"
  rm -f "$screen" "$status.real"
fi
rm -f "$status"

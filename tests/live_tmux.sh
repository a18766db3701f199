#!/usr/bin/env bash
# Live mode in a real terminal: tmux runs the fake lesson's sitting, we type a change, read the
# screen and look for the comparison line.  tests/live_tmux.sh path/to/cudalab_live_fake
set -u
fake=${1:?path to cudalab_live_fake}
command -v tmux >/dev/null || { echo "live_tmux: tmux is not installed"; exit 1; }
session=cudalab-live-$$
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
echo "live_tmux: typed a change, saw the comparison"

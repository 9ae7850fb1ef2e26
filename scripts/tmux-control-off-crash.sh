#!/usr/bin/env bash
# Measures whether a tmux server survives a control client that turns a
# pane's output off (refresh-client -A '%0:off') and detaches: the reason
# handoff-fsm's shared control client asks for no output at all
# (docs/reliability.md). Each trial: a private server with a pane printing
# every 10 ms; six rounds of attach, 200 commands, detach.
#
#   bash scripts/tmux-control-off-crash.sh off 15      # MODE: off, on, none
#   FLAGS=ignore-size,no-output bash scripts/tmux-control-off-crash.sh none 15
set -u
mode=${1:-off}
trials=${2:-10}
deaths=0
for k in $(seq 1 "$trials"); do
  S=hfcrash-$$-$k
  tmux -L "$S" -f /dev/null new-session -d -s a -x 80 -y 24 \
    'while true; do printf "\r⠋ working %s" $RANDOM; sleep 0.01; done'
  tmux -L "$S" new-window -d 'sleep 1000'
  for round in 1 2 3 4 5 6; do
    (
      for i in $(seq 1 200); do
        case $mode in
          off) echo "refresh-client -A '%0:off'" ;;
          on) echo "refresh-client -A '%0:on'" ;;
          *) echo "display-message -p x" ;;
        esac
      done
      sleep 0.2
    ) | tmux -L "$S" -C attach -t a -f "${FLAGS:-ignore-size}" >/dev/null 2>&1
    if ! tmux -L "$S" list-sessions >/dev/null 2>&1; then
      deaths=$((deaths + 1))
      break
    fi
  done
  tmux -L "$S" kill-server 2>/dev/null
done
echo "$(tmux -V), -A $mode: $deaths of $trials servers died"

#!/usr/bin/env bash
# How long Kilo Code takes to show its composer, and how much CPU it spent
# by then (what a loaded machine does not inflate): docs/providers.md, "Kilo
# Code: its start". Each run is a fresh HOME with OpenCode's configuration
# at an unreachable model server (the start does not ask it), in a private
# tmux server (socket kilo-start-$$), 120x40.
#
#   bash scripts/kilo-start.sh [VAR=VALUE ...]     # e.g. KILO_PURE=1
#
# HANDOFF_KILO_BIN is the binary (default: the pin of scripts/install-cli.sh).
set -euo pipefail
bin="${HANDOFF_KILO_BIN:-$(bash "$(dirname "$0")/install-cli.sh" kilo)}"
tmp="$(mktemp -d)"
sock="kilo-start-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/.config/kilo" "$tmp/work"
cat >"$tmp/home/.config/kilo/kilo.json" <<'JSON'
{"model": "fake/fake-model", "small_model": "fake/fake-model", "autoupdate": false, "share": "disabled",
 "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
   "options": {"baseURL": "http://127.0.0.1:9/v1", "apiKey": "k"}, "models": {"fake-model": {"name": "fake-model"}}}}}
JSON
start=$(date +%s%N)
tmux -L "$sock" new-session -d -s k -x 120 -y 40 -c "$tmp/work" \
  env -i PATH="$PATH" HOME="$tmp/home" LANG=C.UTF-8 TERM=xterm-256color "$@" "$bin"
pid=$(tmux -L "$sock" display -p -t k '#{pane_pid}')
until tmux -L "$sock" capture-pane -p -t k | grep -q 'fake-model Fake'; do
  sleep 0.2
  if (( ($(date +%s%N) - start) / 1000000000 > 900 )); then echo "no composer after 900 s" >&2; exit 1; fi
done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cpu=$(awk '{printf "%.1f", ($14 + $15) / 100}' "/proc/$pid/stat")
echo "composer after ${ms} ms, ${cpu} s of CPU (load $(cut -d' ' -f1 /proc/loadavg)) with: ${*:-no variables}"

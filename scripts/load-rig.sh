#!/usr/bin/env bash
# Delivery under load: the e2e delivery rows (e2e TestDelivery) on the real
# CLIs with as many CPU burners as cores, the agent's processes frozen and
# thawed (a cgroup freezer, v1 or v2, 0.3–2 s, twice per send at random
# moments of the paste and the Enter; not SIGSTOP, which tmux undoes at
# once), counted at the fake model: per dispatch, how
# many user messages held the prompt whole, and how many held a paste's
# placeholder or a piece of it. Then the conformance suite beside the same
# burners (no stalls). docs/reliability.md ("Delivery under load") has the
# figures.
#
#   bash scripts/load-rig.sh                  # six CLIs, -count=5
#   bash scripts/load-rig.sh 2 qwen claude    # -count=2, these CLIs only
#   NO_CONFORMANCE=1 bash scripts/load-rig.sh # the delivery rows only
#   BURNERS=0 bash scripts/load-rig.sh        # no burners (a machine loaded already)
#   CASES='^64KB$' RUN='TestDelivery$' bash scripts/load-rig.sh 10 qwen
#                                             # these delivery rows only (a regexp of their
#                                             # names), without TestFrozenMidPaste
#
# Not in the gate (.ci/run): under stalls a CLI may take a paste in parts.
# A row passes when the prompt reached the model whole and once and the
# dispatch was done, or when nothing of it reached the model and the
# dispatch failed saying so (an error wrapping ErrPasteIncomplete,
# ErrEnterNotTaken, ErrPromptNotTaken, ErrNotSubmitted or ErrComposerMode).
# Any part of a prompt at the model (a placeholder, a piece, in any turn,
# or a piece of an earlier row's prompt joined to this one) fails the row,
# whatever send said.
# TestFrozenMidPaste then freezes the agent for 1.5 s mid-paste of a
# 64 KB prompt, three times per CLI, and checks the same, and that the
# prompt after each arrives alone. It needs root and a cgroup freezer;
# without one every row fails saying the rig cannot stall. The CLIs must be installed
# (bash scripts/install-cli.sh NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

count="${1:-5}"
shift || true
clis=("$@")
[ ${#clis[@]} -gt 0 ] || clis=(codex claude gemini qwen opencode pi)
out="${OUT:-$(mktemp -d /tmp/handoff-load-rig.XXXXXX)}"
mkdir -p "$out"

burners=()
stop_burners() {
	for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
	burners=()
}
trap stop_burners EXIT
for _ in $(seq "${BURNERS:-$(nproc)}"); do
	(while :; do :; done) &
	burners+=("$!")
done
echo "load rig: ${#burners[@]} burners, load average $(cut -d' ' -f1-3 /proc/loadavg), -count=$count, CLIs: ${clis[*]}; logs in $out"

status=0
for cli in "${clis[@]}"; do
	start=$(date +%s)
	if ! HANDOFF_LOAD_RIG=1 HANDOFF_DELIVERY_ONLY="$cli" HANDOFF_DELIVERY_CASES="${CASES:-}" go test ./e2e/ -run "${RUN:-TestDelivery\$|TestFrozenMidPaste\$}" \
		-count="$count" -v -timeout 4h >"$out/delivery-$cli.log" 2>&1; then
		status=1
	fi
	echo "$cli delivery: $(( $(date +%s) - start ))s, $(grep -c -- '--- FAIL' "$out/delivery-$cli.log" || true) failed rows, load average $(cut -d' ' -f1-3 /proc/loadavg)"
done

# The counts at the fake model, per CLI.
grep -h 'TALLY ' "$out"/delivery-*.log | sed 's/.*TALLY //' | awk '
{
	delete f
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	cli = f["cli"]; n[cli]++; stalls[cli] += f["stalls"]; tried[cli] += f["tried"]
	heldms[cli] += f["heldms"]; drew[cli] += f["drew"]
	named = 0
	if (f["whole"] == 1 && f["parts"] == 0 && f["ok"] == "true") { once[cli]++; named = 1 }
	if (f["whole"] > 1) { twice[cli]++; named = 1 }
	if (f["parts"] > 0 || f["earlier"] > 0) { partial[cli]++; named = 1 }
	if (f["whole"] == 0 && f["parts"] == 0 && f["said"] != "true") { lost[cli]++; named = 1 }
	if (f["ok"] == "false" && f["said"] == "true" && f["whole"] == 0 && f["parts"] == 0 && f["earlier"] == 0) { failed[cli]++; named = 1 }
	if (f["ok"] == "true" && !(f["whole"] == 1 && f["parts"] == 0)) wrong[cli]++
	# Failed for none of the reasons above: a timeout with the prompt
	# whole and once at the model (a test-side bound at that load).
	if (!named) other[cli]++
}
END {
	printf "%-9s %9s %13s %9s %5s %12s %7s %8s %7s %21s %6s %12s\n", "cli", "dispatches", "frozen/tried", "frozen s", "drew", "whole+once", "twice", "partial", "lost", "send failed, said why", "other", "wrong exit 0"
	for (c in n) printf "%-9s %9d %13s %9.1f %5d %12d %7d %8d %7d %21d %6d %12d\n", c, n[c], stalls[c] "/" tried[c], heldms[c] / 1000, drew[c], once[c], twice[c], partial[c], lost[c], failed[c], other[c], wrong[c]
}' | tee "$out/tally.txt"

if [ -z "${NO_CONFORMANCE:-}" ]; then
	names=$(IFS='|'; echo "${clis[*]}")
	start=$(date +%s)
	if ! go test ./e2e/ -run "TestConformance/($names)\$" -count="$count" -timeout 4h >"$out/conformance.log" 2>&1; then
		status=1
	fi
	echo "conformance: $(( $(date +%s) - start ))s, $(grep -c -- '--- FAIL' "$out/conformance.log" || true) failed rows"
fi
exit $status

#!/usr/bin/env bash
# Runs .ci/run as CI does, cold, and says where the time and the CPU went:
#
#   scripts/ci-measure.sh DIR [BURNERS]
#
# DIR (new or empty) gets a fresh clone of HEAD (repo/), and empty caches:
# Go build and module caches, npm's cache and the CLI installs (XDG_CACHE_HOME),
# so nothing comes from the machine's own caches. BURNERS busy loops (0 by
# default; the gate must also pass beside two on two cores) run beside it.
# At the end, after .ci/run's own summary: each step's wall and CPU seconds
# (user+system of every process of the run, tmux servers and CLIs included:
# they are counted in a cpuacct cgroup of their own, where the machine lets
# us make one) and the machine's load average during the step. Samples are
# kept in DIR/cpu.samples, .ci/run's output in DIR/log.txt and DIR/out.
set -euo pipefail
dir="${1:?usage: ci-measure.sh DIR [BURNERS]}"
burners="${2:-0}"
top="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
[ -z "$(ls -A "$dir")" ] || { echo "ci-measure: $dir is not empty" >&2; exit 2; }
git clone -q "$top" "$dir/repo"

# Cold: every cache this run fills is under DIR.
export GOCACHE="$dir/gocache" GOMODCACHE="$dir/gomod" XDG_CACHE_HOME="$dir/cache"
export npm_config_cache="$dir/npm" HANDOFF_CI_OUT="$dir/out"
for v in $(env | grep -o '^HANDOFF_[A-Z]*_\(BIN\|CACHE\|VERSION\)' || true); do unset "$v"; done

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
for _ in $(seq 1 "$burners"); do
	(while :; do :; done) &
	pids+=($!)
done

# The cgroup counts the CPU of every process the run starts, also those that
# leave the process tree (tmux servers daemonize). Without one, the whole
# machine's CPU is sampled instead (other work on it included).
cg="/sys/fs/cgroup/cpuacct/handoff-ci-$$"
if mkdir "$cg" 2>/dev/null; then
	counter="$cg/cpuacct.usage" scale=1000000000
else
	cg="" counter="/proc/stat" scale=100
fi
sample() {
	if [ -n "$cg" ]; then cat "$counter"; else awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; fi
}
(while :; do echo "$(date +%s) $(sample) $(cut -d' ' -f1 /proc/loadavg)"; sleep 2; done) >"$dir/cpu.samples" &
pids+=($!)

rc=0
(
	[ -z "$cg" ] || echo "$BASHPID" >"$cg/cgroup.procs"
	cd "$dir/repo" && exec bash .ci/run
) >"$dir/log.txt" 2>&1 || rc=$?
echo "$(date +%s) $(sample) $(cut -d' ' -f1 /proc/loadavg)" >>"$dir/cpu.samples"
sed -n '/^=== summary/,$p' "$dir/log.txt"

echo
whose="the run's processes only"
[ -n "$cg" ] || whose="the whole machine"
echo "per step: wall s, CPU s (user+system, $whose), load average; burners: $burners"
grep -o '^=== .* ([0-9:]*)$' "$dir/log.txt" | sed 's/^=== \(.*\) (\([0-9:]*\))$/\2\t\1/' |
	while IFS=$'\t' read -r hms name; do echo "$(date -u -d "$(date -u +%F) $hms" +%s)	$name"; done |
	awk -F'\t' -v samples="$dir/cpu.samples" -v scale="$scale" '
	BEGIN { while ((getline line < samples) > 0) { split(line, f, " "); n++; t[n] = f[1]; c[n] = f[2]; l[n] = f[3] } }
	function at(ts,   i) { for (i = 1; i <= n; i++) if (t[i] >= ts) return i; return n }
	function row(name, from, to,   i, j, s, k, sum) {
		i = at(from); j = at(to); sum = 0; k = 0
		for (s = i; s <= j; s++) { sum += l[s]; k++ }
		printf "%6d s %7.0f s CPU  load %5.1f  %s\n", to - from, (c[j] - c[i]) / scale, k ? sum / k : 0, name
	}
	{ if (NR > 1) row(prev, start, $1); prev = $2; start = $1 }
	END { if (NR) row(prev, start, t[n]); printf "%6d s %7.0f s CPU  in all\n", t[n] - t[1], (c[n] - c[1]) / scale }'
if [ -n "$cg" ]; then
	left="$(cat "$cg/cgroup.procs")"
	[ -z "$left" ] || echo "ci-measure: processes the run left behind: $left"
	rmdir "$cg" 2>/dev/null || true
fi
exit "$rc"

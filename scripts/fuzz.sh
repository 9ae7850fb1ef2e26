#!/usr/bin/env bash
# Exploratory fuzzing: every FuzzXxx target of the repository, one after
# another, each for the same duration or number of runs.
#
#   bash scripts/fuzz.sh 30s              # each target for 30 seconds
#   bash scripts/fuzz.sh 100000x          # each target for 100,000 inputs
#   bash scripts/fuzz.sh 1m ./codex ./pi  # only the targets in these folders
#
# This is not part of CI's gate (.ci/run): exploration finds a new input by
# chance, so a gate that explored could fail on a commit that changed
# nothing. The gate runs the committed corpora (testdata/fuzz/FuzzXxx, the
# f.Add seeds) as plain `go test` does. What this script finds is fixed and
# its input committed, and from then on the gate runs it on every commit.
#
# On a finding, Go writes the failing input to the target's
# testdata/fuzz/FuzzXxx/ folder; the script says where, and how to re-run
# it. It goes on with the other targets and exits 1 if any failed.
#
# A duration can, with Go 1.26, end in a failure of the fuzzing engine's
# own ("context deadline exceeded", no input written; golang/go#75804,
# fixed in Go 1.27): the script tells that apart from a finding. A count
# (100000x) does not hit it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

usage() {
	echo "usage: scripts/fuzz.sh DURATION|COUNTx [FOLDER...]   (e.g. 30s, 5m, 100000x)" >&2
	exit 2
}
fuzztime="${1:-}"
[[ "$fuzztime" =~ ^([0-9]+x|[0-9.]+(ns|us|µs|ms|s|m|h))+$ ]] || usage
shift
folders=("$@")

# The targets: "folder Name" for each func FuzzXxx(… *testing.F) in a test
# file git knows (nested modules such as contrib/temporal included).
targets=()
while IFS=: read -r file line; do
	name="$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")"
	targets+=("$(dirname "$file") $name")
done < <(git grep -E '^func Fuzz[A-Za-z0-9_]*\([a-zA-Z_]+ \*testing\.F\)' -- '*_test.go' | sort)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no FuzzXxx targets found" >&2
	exit 1
fi

# module_of prints the folder of the go.mod that holds folder $1.
module_of() {
	local d="$1"
	while [ "$d" != "." ] && [ ! -f "$d/go.mod" ]; do d="$(dirname "$d")"; done
	echo "$d"
}

failed=()
ran=0
for t in "${targets[@]}"; do
	dir="${t% *}" name="${t#* }"
	if [ ${#folders[@]} -gt 0 ]; then
		want=false
		for f in "${folders[@]}"; do
			[ "${f#./}" = "$dir" ] && want=true
		done
		$want || continue
	fi
	ran=$((ran + 1))
	mod="$(module_of "$dir")"
	rel="./${dir#"$mod"}"
	rel="${rel/#.\/\//./}"
	printf '\n=== %s %s (%s)\n' "$dir" "$name" "$fuzztime"
	out="$(mktemp)"
	# -run '^$': the unit tests run in the gate, not here; the fuzz target
	# still runs its committed corpus first.
	if go -C "$mod" test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$rel" 2>&1 | tee "$out"; then
		rm -f "$out"
		continue
	fi
	written="$(sed -nE 's/.*Failing input written to ([^ ]+).*/\1/p' "$out" | tail -1)"
	if [ -n "$written" ]; then
		failed+=("$dir $name: input $dir/$written")
		printf '\nfuzz: %s %s FOUND A FAILING INPUT: %s\n' "$dir" "$name" "$dir/$written"
		printf 'fuzz: re-run it: go test -run %s/%s ./%s\n' "$name" "$(basename "$written")" "$dir"
		printf 'fuzz: fix the code, then commit the input with the fix (it becomes a regression case of the gate)\n'
	else
		failed+=("$dir $name: failed without writing an input (see its output above)")
		printf '\nfuzz: %s %s failed without writing an input: not a finding of the target\n' "$dir" "$name"
		printf 'fuzz: (with a duration on Go 1.26, possibly golang/go#75804; a count such as 100000x avoids it)\n'
	fi
	rm -f "$out"
done

if [ "$ran" -eq 0 ]; then
	echo "fuzz: no target in ${folders[*]}; targets: ${targets[*]}" >&2
	exit 2
fi
echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: ${#failed[@]} of $ran targets failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz: $ran targets, $fuzztime each, nothing found"

#!/usr/bin/env bash
# Counts the compiles a cold .ci/run does, without compiling anything:
#
#   scripts/ci-compiles.sh
#
# Each Go command of the gate (the same commands and flags as .ci/run and
# the tests' own builds: keep them in step) runs with -n on an empty build
# cache; every compile it would run carries its action ID (-buildid), the
# key of Go's build cache. A compile whose ID an earlier command already
# had is a cache hit in the real run. Printed per command: the compiles
# that are new, of all it needs; then the distinct compiles of the gate.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOCACHE GOFLAGS="${GOFLAGS:--buildvcs=false}"
GOCACHE="$(mktemp -d)"
seen="$(mktemp)"
trap 'rm -rf "$GOCACHE" "$seen"' EXIT
count() { # count NAME DIR COMMAND...
	local name=$1 dir=$2 ids new
	shift 2
	ids="$(cd "$dir" && "$@" 2>&1 | grep -o -- '-buildid [^ ]*' | sort -u || true)"
	new="$(comm -23 <(printf '%s\n' "$ids" | grep .) "$seen" | wc -l)"
	printf '%5d new of %5d  %s\n' "$new" "$(printf '%s\n' "$ids" | grep -c .)" "$name"
	printf '%s\n' "$ids" | grep . | sort -u -m - "$seen" >"$seen.tmp"
	mv "$seen.tmp" "$seen"
}
release=(env CGO_ENABLED=0 go build -trimpath -n -o /dev/null) # testkit.GoBuild's and the snapshot's flags
count "testsummary" . "${release[@]}" ./scripts/testsummary
count "go vet -race ./..." . go vet -race -n ./...
count "scripts/crosscheck: build, test (its check of darwin and freebsd compiles nothing)" scripts/crosscheck sh -c "${release[*]} . && CGO_ENABLED=0 go test -trimpath -n ./..."
count "the tests' builds of the command (e2e, examples)" . "${release[@]}" ./cmd/handoff-fsm
count "e2e's build of examples/three-agents" . "${release[@]}" ./examples/three-agents
for t in linux/amd64 darwin/arm64; do
	count "release snapshot $t" . env CGO_ENABLED=0 GOOS="${t%/*}" GOARCH="${t#*/}" go build -trimpath -buildvcs=true -n -o /dev/null ./cmd/handoff-fsm
done
count "go test -race ./..." . go test -race -n ./...
count "contrib/browser: vet -race, test -race" contrib/browser sh -c 'go vet -race -n ./... && go test -race -n ./...'
count "contrib/temporal: vet -race (also -tags temporalserver), test -race" contrib/temporal sh -c 'go vet -race -n ./... && go vet -race -tags temporalserver -n ./... && go test -race -n ./...'
# Not in the gate: scripts/temporal-server.sh's server (contrib/temporal/testserver) and handoff-temporal builds.
echo "distinct compiles in all: $(wc -l <"$seen")"

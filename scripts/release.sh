#!/usr/bin/env bash
# Release builds: the handoff-fsm command cross-built for every system it
# supports, each binary stamped with its version by the Go toolchain (module
# version from the release tag, source revision, modified flag, Go version:
# what `handoff-fsm version` prints), packed as .tar.gz with SHA256SUMS.
#
#   scripts/release.sh OUT_DIR              # HEAD must be a clean vX.Y.Z tag
#   scripts/release.sh --snapshot OUT_DIR   # any commit: a pseudo-version
#   scripts/release.sh --snapshot --targets "linux/amd64 darwin/arm64" OUT_DIR
#
# --targets (snapshots only) builds some of the targets: CI builds one per
# system (docs/testing.md says what that still proves); a release always
# builds every one.
#
# It builds from a fresh clone of the committed HEAD, so what is released is
# exactly a commit (uncommitted changes are left out; a snapshot says so) and
# the version stamp works in a git worktree too. It checks every binary's
# stamp before it packs it.
set -euo pipefail

all="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64"
snapshot=false targets="$all"
if [ "${1:-}" = "--snapshot" ]; then
	snapshot=true
	shift
	if [ "${1:-}" = "--targets" ]; then
		targets="${2:?--targets needs a list, e.g. \"linux/amd64 darwin/arm64\"}"
		shift 2
		for target in $targets; do
			[[ " $all " == *" $target "* ]] || { echo "release: $target is not a target (one of: $all)" >&2; exit 2; }
		done
	fi
fi
out="${1:?usage: scripts/release.sh [--snapshot [--targets LIST]] OUT_DIR}"
module=github.com/handoff-fsm/handoff-fsm

root="$(cd "$(dirname "$0")/.." && pwd)"
rev="$(git -C "$root" rev-parse HEAD)"
tag="$(git -C "$root" describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null || true)"
if ! $snapshot; then
	[ -n "$tag" ] || { echo "release: HEAD ($rev) is not a vX.Y.Z tag; tag it, or build a --snapshot" >&2; exit 1; }
	[ -z "$(git -C "$root" status --porcelain)" ] || { echo "release: the worktree has uncommitted changes" >&2; exit 1; }
elif [ -n "$(git -C "$root" status --porcelain)" ]; then
	echo "release: note: uncommitted changes are not in a snapshot; it builds $rev" >&2
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git clone --quiet "$root" "$src/handoff-fsm"
git -C "$src/handoff-fsm" checkout --quiet --detach "$rev"
cd "$src/handoff-fsm"

version=""
for target in $targets; do
	goos="${target%/*}" goarch="${target#*/}"
	bin="$src/bin/$goos-$goarch/handoff-fsm"
	# -buildvcs=true: stamp the revision even where GOFLAGS turns it off.
	CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" go build -trimpath -buildvcs=true -o "$bin" ./cmd/handoff-fsm
	info="$(go version -m "$bin")"
	got="$(awk -v m="$module" '$1 == "mod" && $2 == m { print $3 }' <<<"$info")"
	if [ -z "$got" ] || [ "$got" = "(devel)" ]; then
		echo "release: $target: no module version stamped:" >&2
		echo "$info" >&2
		exit 1
	fi
	grep -q "vcs.revision=$rev" <<<"$info" || { echo "release: $target: revision $rev not stamped" >&2; exit 1; }
	if [ -n "$tag" ] && [ "$got" != "$tag" ]; then
		echo "release: $target: stamped $got, the tag is $tag" >&2
		exit 1
	fi
	version="$got"
	name="handoff-fsm_${version}_${goos}_${goarch}"
	tar -czf "$out/$name.tar.gz" -C "$(dirname "$bin")" handoff-fsm
	echo "$out/$name.tar.gz ($target, $version)"
done
(cd "$out" && sha256sum handoff-fsm_*.tar.gz >SHA256SUMS)

# The binary for this machine, if built, says the same.
host="$(go env GOOS)-$(go env GOARCH)"
if [ -x "$src/bin/$host/handoff-fsm" ]; then
	"$src/bin/$host/handoff-fsm" version
fi

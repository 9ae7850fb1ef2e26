#!/usr/bin/env bash
# Installs the pinned OpenAI Codex CLI for the end-to-end tests into a cache
# folder outside the repository and prints the path of the native binary.
#
#   scripts/install-codex.sh            # installs once, then only prints the path
#   export HANDOFF_CODEX_BIN="$(scripts/install-codex.sh)"
#
# Where: ${HANDOFF_CODEX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/codex-VERSION}
# (the e2e tests look there when HANDOFF_CODEX_BIN is unset). Needs npm and the
# npm registry; about 400 MB of disk (the platform package carries the binary).
# Idempotent: an existing, working install is reused.
set -euo pipefail

version="${HANDOFF_CODEX_VERSION:-0.169.0}"
dir="${HANDOFF_CODEX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/codex-$version}"
link="$dir/codex"

works() {
	# A private CODEX_HOME: asking the version must not touch ~/.codex.
	[ -x "$link" ] && CODEX_HOME="$dir/version-home" "$link" --version 2>/dev/null | grep -qF "$version"
}

if ! works; then
	command -v npm >/dev/null 2>&1 || {
		echo "install-codex: npm is required (apt-get install -y nodejs npm)" >&2
		exit 1
	}
	mkdir -p "$dir/version-home"
	# Install into the cache folder only; nothing global, nothing in the repo.
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"@openai/codex@$version" >&2
	# The JS launcher only execs a native binary from the platform package;
	# link that binary directly so no Node process sits between tmux and Codex.
	bin="$(find "$dir/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f -perm -u+x 2>/dev/null | head -n 1)"
	if [ -z "$bin" ]; then
		echo "install-codex: no native codex binary in $dir/node_modules/@openai (unsupported platform?)" >&2
		exit 1
	fi
	ln -sfn "$bin" "$link"
	works || {
		echo "install-codex: $link does not report version $version" >&2
		exit 1
	}
fi
echo "$link"

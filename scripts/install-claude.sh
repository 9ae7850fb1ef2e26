#!/usr/bin/env bash
# Installs the pinned Anthropic Claude Code CLI for the end-to-end tests into a
# cache folder outside the repository and prints the path of the native binary.
#
#   scripts/install-claude.sh            # installs once, then only prints the path
#   export HANDOFF_CLAUDE_BIN="$(scripts/install-claude.sh)"
#
# Where: ${HANDOFF_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/claude-VERSION}
# (the e2e tests look there when HANDOFF_CLAUDE_BIN is unset). Needs npm and the
# npm registry; about 250 MB of disk (the platform package carries the binary).
# Idempotent: an existing, working install is reused.
set -euo pipefail

version="${HANDOFF_CLAUDE_VERSION:-2.1.330}"
dir="${HANDOFF_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/claude-$version}"
link="$dir/claude"

works() {
	# A private HOME: asking the version must not touch ~/.claude.
	[ -x "$link" ] && HOME="$dir/version-home" DISABLE_AUTOUPDATER=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$link" --version 2>/dev/null | grep -qF "$version"
}

if ! works; then
	command -v npm >/dev/null 2>&1 || {
		echo "install-claude: npm is required (apt-get install -y nodejs npm)" >&2
		exit 1
	}
	mkdir -p "$dir/version-home"
	# Install into the cache folder only; nothing global, nothing in the repo.
	# --ignore-scripts: the package's postinstall only copies the platform
	# binary over a stub (and wants Node 22); we link that binary ourselves.
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --ignore-scripts \
		"@anthropic-ai/claude-code@$version" >&2
	# The platform package (an optional dependency) carries the native binary;
	# link it directly so no Node process sits between tmux and Claude Code.
	bin="$(find "$dir/node_modules/@anthropic-ai" -path '*/claude-code-*/*' -name claude -type f 2>/dev/null | head -n 1)"
	if [ -z "$bin" ]; then
		echo "install-claude: no native claude binary in $dir/node_modules/@anthropic-ai (unsupported platform?)" >&2
		exit 1
	fi
	chmod u+x "$bin"
	ln -sfn "$bin" "$link"
	works || {
		echo "install-claude: $link does not report version $version" >&2
		exit 1
	}
fi
echo "$link"

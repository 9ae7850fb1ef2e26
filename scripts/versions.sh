#!/usr/bin/env bash
# Runs the conformance and delivery rows (e2e TestConformance and
# TestDelivery) and `handoff-fsm doctor` over several releases of each
# agent CLI, each binary in place of the pin, and writes what it found to
# docs/versions.md: CLI × version × rows right. By hand or on a schedule,
# never on the landing gate (each release is an npm install and minutes of
# real CLIs). See docs/versions.md.
#
#   scripts/versions.sh                          # every CLI: the pin, the newest, the window's oldest
#   scripts/versions.sh claude                   # one CLI, the same three
#   scripts/versions.sh claude@2.1.300,2.1.315   # these releases
#   scripts/versions.sh --spread 2 codex         # and 2 releases spread between the oldest and the newest
#
# Releases are installed with scripts/install-cli.sh (HANDOFF_<NAME>_VERSION)
# into the cache folder. Needs go, tmux, npm and the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
spread=0
if [ "${1:-}" = "--spread" ]; then
	spread="$2"
	shift 2
fi
doc=docs/versions.md
log_dir="${HANDOFF_VERSIONS_LOG:-$(mktemp -d)}"
bin="$log_dir/handoff-fsm"
go build -o "$bin" ./cmd/handoff-fsm
go test -c -o "$log_dir/e2e.test" ./e2e

# field NAME KEY: a provider's field from `handoff-fsm providers --json`.
field() {
	"$bin" providers --json | node -e '
		const [name, key] = process.argv.slice(1);
		const p = JSON.parse(require("fs").readFileSync(0, "utf8")).find(p => p.name === name);
		const v = key.split(".").reduce((o, k) => o && o[k], p);
		process.stdout.write(v ? String(v) : "");' "$1" "$2"
}

# releases NAME: the pin, the newest on the registry, the window's oldest,
# and $spread releases between the oldest and the newest (stable ones only).
releases() {
	local name="$1" pkg
	pkg="$(field "$name" cli)"
	npm view "$pkg" versions --json | node -e '
		const [pin, oldest, spread] = process.argv.slice(1);
		const cmp = (a, b) => { const x = a.split(".").map(Number), y = b.split(".").map(Number);
			for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]; return 0; };
		const all = JSON.parse(require("fs").readFileSync(0, "utf8")).filter(v => /^\d+\.\d+\.\d+$/.test(v)).sort(cmp);
		const newest = all[all.length - 1];
		const inside = all.filter(v => cmp(v, oldest) > 0 && cmp(v, newest) < 0);
		const pick = new Set([pin, newest, oldest]);
		for (let i = 1; i <= Number(spread); i++) pick.add(inside[Math.floor(i * inside.length / (Number(spread) + 1))]);
		console.log([...pick].filter(Boolean).sort(cmp).join(","));' \
		"$(field "$name" version)" "$(field "$name" window.oldest)" "$spread"
}

# check NAME VERSION: installs the release, runs the rows and doctor on it,
# and prints the matrix row.
check() {
	local name="$1" version="$2" upper path log passed failed total doctor right cases failing
	upper="$(echo "$name" | tr '[:lower:]' '[:upper:]')"
	path="$(env "HANDOFF_${upper}_VERSION=$version" bash scripts/install-cli.sh "$name")"
	log="$log_dir/$name-$version.log"
	# The rows' leaf subtests; a CLI's own tests run from e2e/ (testdata).
	(cd e2e && env CI=1 "HANDOFF_${upper}_BIN=$path" "$log_dir/e2e.test" -test.run "^(TestConformance|TestDelivery)\$/^$name\$" \
		-test.v -test.count=1 -test.timeout 20m >"$log" 2>&1) || true
	passed="$(grep -cE "^ {8}--- PASS: Test(Conformance|Delivery)/$name/" "$log" || true)"
	failed="$(grep -E "^ {8}--- FAIL: Test(Conformance|Delivery)/$name/" "$log" | sed -E 's/.*--- FAIL: Test[A-Za-z]+\/[a-z]+\/([^ ]+) .*/\1/' | tr '\n' ' ' || true)"
	total=$((passed + $(echo "$failed" | wc -w)))
	doctor="$("$bin" doctor --provider "$name" --command "$path" --json 2>>"$log" || true)"
	echo "$doctor" >"$log_dir/$name-$version.doctor.json"
	right="$(echo "$doctor" | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8") || "[]"); const c = (r[0] || {}).cases || [];
		console.log(c.filter(x => x.ok).length + "/" + c.length + "|" + c.filter(x => !x.ok).map(x => x.case).join(" "))')"
	cases="${right%%|*}"
	failing="$(echo "$failed ${right#*|}" | xargs)"
	printf '| %s | %s | %s/%s | %s | %s | %s |\n' "$name" "$version" "$passed" "$total" "$cases" "${failing:-—}" "$(date -u +%Y-%m-%d)"
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(bash scripts/install-cli.sh --list | cut -d' ' -f1)
rows="$log_dir/rows.md"
: >"$rows"
for target in "${targets[@]}"; do
	name="${target%%@*}"
	if [ "$target" = "$name" ]; then list="$(releases "$name")"; else list="${target#*@}"; fi
	for version in ${list//,/ }; do
		echo "versions: $name $version" >&2
		check "$name" "$version" | tee -a "$rows"
	done
done

# Merge: a row replaces the one of the same CLI and version; the table
# stays sorted by CLI and then version. Under a lock on the file: two runs
# ending together each kept only their own rows.
begin='<!-- matrix: scripts/versions.sh rewrites the rows below -->'
end='<!-- end of matrix -->'
flock "$doc" node - "$doc" "$rows" "$begin" "$end" <<'NODE'
const fs = require("fs");
const [doc, rowsFile, begin, end] = process.argv.slice(2);
const text = fs.readFileSync(doc, "utf8");
const i = text.indexOf(begin), j = text.indexOf(end);
if (i < 0 || j < 0) throw new Error(doc + ": the matrix markers are missing");
const head = "| CLI | version | conformance + delivery rows right | doctor cases right | wrong | run |\n|---|---|---|---|---|---|";
const key = r => r.split("|").slice(1, 3).map(s => s.trim()).join("@");
const rows = new Map();
for (const r of text.slice(i + begin.length, j).split("\n")) if (/^\| [a-z]/.test(r) && !r.startsWith("| CLI")) rows.set(key(r), r);
for (const r of fs.readFileSync(rowsFile, "utf8").split("\n")) if (r.startsWith("| ")) rows.set(key(r), r);
const cmp = (a, b) => { const [na, va] = a.split("@"), [nb, vb] = b.split("@"); if (na !== nb) return na < nb ? -1 : 1;
	const x = va.split(".").map(Number), y = vb.split(".").map(Number); for (let k = 0; k < 3; k++) if (x[k] !== y[k]) return x[k] - y[k]; return 0; };
const body = [...rows.keys()].sort(cmp).map(k => rows.get(k)).join("\n");
fs.writeFileSync(doc, text.slice(0, i + begin.length) + "\n" + head + "\n" + body + "\n" + text.slice(j));
NODE
echo "versions: the matrix is in $doc; logs in $log_dir" >&2

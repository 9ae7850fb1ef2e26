package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// completionScripts are the scripts `completion` prints, by shell. Each asks
// `handoff-fsm __complete WORD…` (the words typed, the last the one under the
// cursor) and gets a candidate a line, "word<TAB>description"; none means
// file names.
var completionScripts = map[string]string{
	"bash": `# bash completion for handoff-fsm. Load it: source <(handoff-fsm completion bash)
_handoff_fsm_complete() {
    local line="${COMP_LINE:0:COMP_POINT}"
    local -a words=()
    read -ra words <<< "$line"
    [[ "$line" =~ [[:space:]]$ ]] && words+=("")
    (( ${#words[@]} < 2 )) && return
    local cur="${words[${#words[@]}-1]}" c
    local -a out=()
    while IFS= read -r c; do
        out+=("${c%%$'\t'*}")
    done < <("${words[0]}" __complete "${words[@]:1}" 2>/dev/null)
    # bash replaces only what follows the last = or : of the word
    # (COMP_WORDBREAKS): drop what comes before from the candidates.
    local keep="${cur%"${cur##*[=:]}"}"
    if [[ -n "$keep" && "$COMP_WORDBREAKS" == *"${keep: -1}"* ]]; then
        out=("${out[@]#"$keep"}")
    fi
    COMPREPLY=("${out[@]}")
}
complete -o default -F _handoff_fsm_complete handoff-fsm
`,
	"zsh": `#compdef handoff-fsm
# zsh completion for handoff-fsm. Load it after compinit: source <(handoff-fsm completion zsh)
_handoff_fsm() {
    local -a lines cands
    local line word desc
    lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT-1]}" "$PREFIX" 2>/dev/null)}")
    for line in "${lines[@]}"; do
        [[ -z "$line" ]] && continue
        word="${line%%$'\t'*}"
        desc=""
        [[ "$line" == *$'\t'* ]] && desc="${line#*$'\t'}"
        cands+=("${word//:/\\:}${desc:+:$desc}")
    done
    if (( ${#cands} )); then
        _describe -t values handoff-fsm cands
    else
        _files
    fi
}
compdef _handoff_fsm handoff-fsm
`,
	"fish": `# fish completion for handoff-fsm. Load it: handoff-fsm completion fish | source
function __handoff_fsm_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($tokens[1] __complete $tokens[2..-1] $cur 2>/dev/null)
    if test (count $out) -eq 0
        __fish_complete_path $cur
        return
    end
    printf '%s\n' $out
end
complete -c handoff-fsm -f -a '(__handoff_fsm_complete)'
`,
}

const completionUsage = `usage: handoff-fsm completion bash|zsh|fish

Prints a completion script for the shell: commands, flags, role and provider
names, and the panes of a running tmux server (--target, after --socket if
given). Load it:

  bash  source <(handoff-fsm completion bash)          (e.g. in ~/.bashrc)
  zsh   source <(handoff-fsm completion zsh)           (after compinit, in ~/.zshrc)
  fish  handoff-fsm completion fish | source           (or save it as
        ~/.config/fish/completions/handoff-fsm.fish)

flags:
`

func runCompletion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("completion", completionUsage, stderr)
	pos, code, ok := cmd.parse(args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return cmd.usageErr("name one shell: %s", strings.Join(shells, ", "))
	}
	script, ok := completionScripts[pos[0]]
	if !ok {
		return cmd.usageErr("unknown shell %q (known: %s)", pos[0], strings.Join(shells, ", "))
	}
	fmt.Fprint(stdout, script)
	return exitOK
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// runClassify reads a raw capture (escape sequences allowed) from a file or
// stdin and prints the classifier's verdict as one JSON object:
// {"status":"…","reason":"…","signals":{…}}.
func runClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("classify", "usage: handoff-fsm classify [--provider NAME | --provider-file FILE] [--title PANE_TITLE] [FILE|-]\n"+
		"\nReads a captured screen (tmux capture-pane -p -e -J; stdin when FILE is - or absent)\n"+
		"and prints {\"status\":…,\"reason\":…,\"signals\":{…}} as one line of JSON.\n"+
		"\nflags:\n", stderr)
	prov := providerFlag(cmd.FlagSet)
	provFile := providerFileFlag(cmd.FlagSet)
	title := cmd.String("title", "", "the pane title (#{pane_title}); Codex shows a spinner there while it streams")
	// Flags may come before or after the file name.
	files, code, ok := cmd.parse(args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		fmt.Fprintf(stderr, "handoff-fsm classify: one capture at a time, got %d files\n", len(files))
		cmd.Usage()
		return exitUsage
	}
	cl, _, capture, code, ok := readClassified(cmd, *prov, *provFile, *title, files, stdin)
	if !ok {
		return code
	}
	return printClassification(cl, capture, *title, stdout, stderr)
}

// readClassified reads the capture files name (stdin when none or "-")
// and picks its classifier: the provider file's, the named provider's, or
// with auto the one that recognises the capture (said on cmd's stderr).
func readClassified(cmd cmdline, prov, provFile, title string, files []string, stdin io.Reader) (cl handoff.Classifier, name, capture string, code int, ok bool) {
	if provFile != "" {
		var err error
		if cl, err = classifierFor(prov, provFile); err != nil {
			return nil, "", "", cmd.usageErr("%v", err), false
		}
		name = "file:" + provFile
	} else if prov != provider.Auto {
		if _, err := provider.Lookup(prov); err != nil {
			return nil, "", "", cmd.usageErr("%v", err), false
		}
	}
	var (
		b      []byte
		source = "stdin"
		err    error
	)
	if len(files) == 0 || files[0] == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		source = files[0]
		b, err = os.ReadFile(files[0])
	}
	if err != nil {
		return nil, "", "", cmd.fail(exitFailure, "cannot read the capture from %s: %v", source, err), false
	}
	if cl != nil {
		return cl, name, string(b), exitOK, true
	}
	name = prov
	if name == provider.Auto {
		// A capture has no pane command: the title and the screen decide.
		if name, err = provider.Detect("", title, string(b)); err != nil {
			return nil, "", "", cmd.fail(exitFailure, "--provider auto: %v", err), false
		}
		fmt.Fprintf(cmd.stderr, "handoff-fsm: --provider auto: %s recognises the capture\n", name)
	}
	if cl, err = provider.Lookup(name); err != nil {
		return nil, "", "", cmd.usageErr("%v", err), false
	}
	return cl, name, string(b), exitOK, true
}

// printClassification prints cl's verdict on capture as one line of JSON.
func printClassification(cl handoff.Classifier, capture, title string, stdout, stderr io.Writer) int {
	c := cl.Classify(capture, title)
	if err := writeJSON(stdout, c); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm classify: %v\n", err)
		return exitFailure
	}
	return exitOK
}

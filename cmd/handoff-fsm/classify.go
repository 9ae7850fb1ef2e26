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
	fs := newFlagSet("classify", "usage: handoff-fsm classify [--provider NAME | --provider-file FILE] [--title PANE_TITLE] [FILE|-]\n"+
		"\nReads a captured screen (tmux capture-pane -p -e -J; stdin when FILE is - or absent)\n"+
		"and prints {\"status\":…,\"reason\":…,\"signals\":{…}} as one line of JSON.\n"+
		"\nflags:\n", stderr)
	prov := providerFlag(fs)
	provFile := providerFileFlag(fs)
	title := fs.String("title", "", "the pane title (#{pane_title}); Codex shows a spinner there while it streams")
	// Flags may come before or after the file name.
	files, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		fmt.Fprintf(stderr, "handoff-fsm classify: one capture at a time, got %d files\n", len(files))
		fs.Usage()
		return exitUsage
	}
	var fileCl handoff.Classifier
	if *provFile != "" {
		var err error
		if fileCl, err = classifierFor(*prov, *provFile); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm classify: %v\n", err)
			return exitUsage
		}
	} else if *prov != provider.Auto {
		if _, err := provider.Lookup(*prov); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm classify: %v\n", err)
			return exitUsage
		}
	}

	var (
		capture []byte
		source  = "stdin"
		err     error
	)
	if len(files) == 0 || files[0] == "-" {
		capture, err = io.ReadAll(stdin)
	} else {
		source = files[0]
		capture, err = os.ReadFile(files[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm classify: cannot read the capture from %s: %v\n", source, err)
		return exitFailure
	}
	name := *prov
	if fileCl != nil {
		return printClassification(fileCl, string(capture), *title, stdout, stderr)
	}
	if name == provider.Auto {
		// A capture has no pane command: the title and the screen decide.
		if name, err = provider.Detect("", *title, string(capture)); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm classify: --provider auto: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "handoff-fsm: --provider auto: %s recognises the capture\n", name)
	}
	cl, err := provider.Lookup(name)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm classify: %v\n", err)
		return exitUsage
	}
	return printClassification(cl, string(capture), *title, stdout, stderr)
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

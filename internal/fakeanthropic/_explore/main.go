package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	fa "github.com/handoff-fsm/handoff-fsm/internal/fakeanthropic"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := fa.Start(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.URL)
	os.WriteFile("/tmp/hfc/url", []byte(s.URL), 0o644)
	add := func(args []string) {
		for _, a := range args {
			kind, arg, _ := strings.Cut(a, "=")
			switch kind {
			case "answer":
				s.Script(fa.Answer(arg))
			case "slow":
				s.Script(fa.Answer(arg).After(8 * time.Second))
			case "stream":
				s.Script(fa.Streamed(strings.Repeat(arg+" ", 30), 60, 12*time.Second))
			case "bash":
				s.Script(fa.Bash(arg, "Run a command"))
			case "write":
				s.Script(fa.WriteResponse(arg))
			case "500":
				s.Script(fa.ServerError())
			case "529":
				s.Script(fa.Overloaded())
			case "429":
				s.Script(fa.RateLimited(time.Second))
			case "q":
				s.Script(fa.ToolUse("AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": "Which colour do you prefer?", "header": "Colour", "multiSelect": false, "options": []any{map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}}}}}, ""))
			case "sleep":
				s.Script(fa.Bash("sleep "+arg+"; echo slept", "Sleep a while"))
			case "streamerr":
				s.Script(fa.StreamError("overloaded_error", "Overloaded", "partial"))
			case "slowtool":
				s.Script(fa.WriteResponse(arg).After(8 * time.Second))
			}
		}
	}
	add(os.Args[1:])
	done := 0
	seen := 0
	for ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		if b, err := os.ReadFile("/tmp/hfc/script"); err == nil {
			ls := strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(ls) > done && ls[0] != "" {
				add(ls[done:])
				done = len(ls)
			}
		}
		rs := s.Requests()
		for _, r := range rs[seen:] {
			b, _ := json.Marshal(map[string]any{"path": r.Path, "kind": r.Kind, "model": r.Model, "stream": r.Stream, "tools": r.Tools, "reply": r.Reply, "user": r.UserText, "results": r.ToolResults})
			fmt.Println(string(b))
			os.WriteFile(fmt.Sprintf("/tmp/hfc/req-%03d.json", seen), r.Body, 0o644)
			seen++
		}
	}
	fmt.Println("problems:", s.Problems())
}

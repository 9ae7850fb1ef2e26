package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
)

// stdin commands: "answer TEXT", "shell CMD", "err400", "dump" (tool names + last user texts)
func main() {
	s, err := fakemodel.Start(context.Background(), fakemodel.ChatCompletions{ShellTool: os.Args[1]})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.URL)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "answer":
			s.Script(fakemodel.Answer(arg))
		case "shell":
			s.Script(fakemodel.Shell(arg, "run it"), fakemodel.Answer("done: ran it"))
		case "write":
			s.Script(fakemodel.WriteResponse(arg), fakemodel.Answer("I wrote the file."))
		case "err400":
			s.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
		case "dump":
			for _, r := range s.Requests() {
				var b struct {
					Tools []struct{ Function struct{ Name string } } `json:"tools"`
				}
				json.Unmarshal(r.Body, &b)
				names := []string{}
				for _, t := range b.Tools {
					names = append(names, t.Function.Name)
				}
				fmt.Printf("%s %s kind=%s reply=%s tools=%v user=%q results=%q\n", r.Method, r.Path, r.Kind, r.Reply, names, trunc(r.UserText), r.ToolResults)
			}
			fmt.Println("problems:", s.Problems())
		case "body":
			rs := s.Requests()
			fmt.Println(string(rs[len(rs)-1].Body))
		}
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// Package mcptest is what the tests of handoff-fsm's MCP server share,
// whether it runs in the test's process (mcpserver) or as the command over
// stdio (handoff-fsm mcp): a client that keeps the progress notifications
// it is sent, and a tool result's text. It is imported by tests only.
package mcptest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress keeps the messages of the progress notifications a client is
// sent, in order. The zero value is ready.
type Progress struct {
	mu   sync.Mutex
	msgs []string
}

// Client is an MCP client named name whose progress notifications p keeps.
func (p *Progress) Client(name string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p.mu.Lock()
			p.msgs = append(p.msgs, req.Params.Message)
			p.mu.Unlock()
		}})
}

// Seen is the messages kept so far.
func (p *Progress) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.msgs)
}

// Until returns the messages once the last one contains last, or after 10
// s: a client may handle a notification after the tool result that
// followed it on the wire.
func (p *Progress) Until(last string) []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := p.Seen()
		if len(got) > 0 && strings.Contains(got[len(got)-1], last) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Text is the text of a tool result: its text contents, joined.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to a service: what `handoff-fsm send --server`, `history`,
// `watch` and `status` use.
type Client struct {
	hc    *http.Client
	base  string
	token string
	addr  Address
}

// NewClient returns a client of the service at a; token is the bearer
// token ("" for none; a unix socket needs none).
func NewClient(a Address, token string) *Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	base := "http://" + a.Addr
	if a.Network == "unix" {
		path := a.Addr
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}
		base = "http://handoff-fsm"
	}
	return &Client{hc: &http.Client{Transport: tr}, base: base, token: token, addr: a}
}

// StatusError is an answer other than 2xx: its code and body.
type StatusError struct {
	Code int
	APIError
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.APIError.Error, e.Code)
}

// Unwrap is ErrBadInput for a 400, so that a caller tells bad input the
// same way from a Client as from a Service.
func (e *StatusError) Unwrap() error {
	if e.Code == http.StatusBadRequest {
		return ErrBadInput
	}
	return nil
}

// do sends a request and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("the service at %s: %w", c.addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		se := &StatusError{Code: resp.StatusCode}
		if err := json.NewDecoder(resp.Body).Decode(&se.APIError); err != nil {
			se.APIError.Error = resp.Status
		}
		return se
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Submit asks for a dispatch.
func (c *Client) Submit(ctx context.Context, b SubmitBody) (View, error) {
	var v View
	return v, c.do(ctx, http.MethodPost, "/v1/dispatches", b, &v)
}

// Get returns a dispatch; with wait > 0 the service answers once it is over
// or after wait.
func (c *Client) Get(ctx context.Context, id string, wait time.Duration) (View, error) {
	path := "/v1/dispatches/" + url.PathEscape(id)
	if wait > 0 {
		path += "?wait=" + url.QueryEscape(wait.String())
	}
	var v View
	return v, c.do(ctx, http.MethodGet, path, nil, &v)
}

// Cancel cancels a dispatch and returns it once it is over.
func (c *Client) Cancel(ctx context.Context, id string) (View, error) {
	var v View
	return v, c.do(ctx, http.MethodDelete, "/v1/dispatches/"+url.PathEscape(id), nil, &v)
}

// List returns the dispatches the filters select (ParseFilter's names).
func (c *Client) List(ctx context.Context, q url.Values) ([]View, error) {
	var out struct {
		Dispatches []View `json:"dispatches"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/dispatches?"+q.Encode(), nil, &out)
	return out.Dispatches, err
}

// Panes returns the board of a tmux server.
func (c *Client) Panes(ctx context.Context, q url.Values) ([]PaneRow, error) {
	var out struct {
		Panes []PaneRow `json:"panes"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/panes?"+q.Encode(), nil, &out)
	return out.Panes, err
}

// Events streams the service's events (one dispatch's with id; with
// after > 0, first the kept ones numbered after it: a submission's
// AcceptedSeq, say) until ctx ends or the stream does; the channel is
// closed then.
func (c *Client) Events(ctx context.Context, id string, after uint64) (<-chan Event, error) {
	q := url.Values{}
	if id != "" {
		q.Set("id", id)
	}
	if after > 0 {
		q.Set("after", strconv.FormatUint(after, 10))
	}
	path := "/v1/events"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the service at %s: %w", c.addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, &StatusError{Code: resp.StatusCode, APIError: APIError{Error: resp.Status}}
	}
	ch := make(chan Event, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			var e Event
			if json.Unmarshal([]byte(line), &e) != nil {
				continue
			}
			select {
			case ch <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

package serve

import "context"

// BoardLink asks the service for a one-time login link to its web board
// (serve --http; POST /board/link).
func (c *Client) BoardLink(ctx context.Context) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	if err := c.do(ctx, "POST", "/board/link", nil, &out); err != nil {
		return "", err
	}
	return out.URL, nil
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// continueYAML is the handoff item of the mcpServers list in Continue's
// config.yaml, in its global folder ($CONTINUE_GLOBAL_DIR, else
// ~/.continue). Continue's CLI (1.5.47) reads MCP servers from that
// file's list only (or a hub's): the .continue/mcpServers/ folders are
// read by its IDE extensions, not by cn, so there is no project file and
// no file of handoff's own to write. The file is edited as a YAML tree:
// its other keys, items and comments are kept (the layout is the YAML
// library's: two spaces, and apply backs the old file up first).
//
// A missing config.yaml is an error, not a new file: without one, Continue
// uses its hub's configuration, which a config.yaml naming only an MCP
// server would replace with one that has no model.
func (in installation) continueYAML() ([]change, error) {
	if !in.user {
		return nil, installUsageError("continue has no project MCP file (its CLI reads MCP servers from its config.yaml only): use --scope user")
	}
	dir := os.Getenv("CONTINUE_GLOBAL_DIR")
	if dir == "" {
		dir = filepath.Join(in.home, ".continue")
	}
	path := filepath.Join(dir, "config.yaml")
	old, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: Continue then uses its hub's configuration, which a config.yaml holding only an MCP server would replace (it would have no model); write your config.yaml (its models) first, then install again", path)
	}
	if err != nil {
		return nil, err
	}
	content, err := withMCPServer(old, continueServer(in.bin, in.args))
	if err != nil {
		return nil, fmt.Errorf("%s: %w; left as it is", path, err)
	}
	return []change{{path, content}}, nil
}

// continueServer is handoff's item of Continue's mcpServers: a stdio
// server. Continue has no per-server timeout for a tool call (the MCP
// SDK's 60 s; connectionTimeout is for the start only).
func continueServer(bin string, args []string) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, a := range args {
		list.Content = append(list.Content, scalar(a))
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalar("name"), scalar(mcpName), scalar("type"), scalar("stdio"),
		scalar("command"), scalar(bin), scalar("args"), list,
	}}
}

// scalar is a YAML string node; the encoder quotes it where it must.
func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// withMCPServer is the YAML document doc with server as the item of its
// top-level mcpServers list named like server: that item replaced, or the
// item appended (the list made when there is none). A document that is
// not a mapping, or whose mcpServers is not a list, is an error.
func withMCPServer(doc []byte, server *yaml.Node) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("not YAML (%v)", err)
	}
	if root.Kind == 0 {
		// An empty file.
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML mapping")
	}
	top := root.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "mcpServers" {
			list = top.Content[i+1]
		}
	}
	switch {
	case list == nil:
		list = &yaml.Node{Kind: yaml.SequenceNode}
		top.Content = append(top.Content, scalar("mcpServers"), list)
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		// "mcpServers:" with nothing under it.
		*list = yaml.Node{Kind: yaml.SequenceNode}
	case list.Kind != yaml.SequenceNode:
		return nil, errors.New("mcpServers is not a list")
	}
	name := server.Content[1].Value
	replaced := false
	for i, item := range list.Content {
		if item.Kind == yaml.MappingNode && itemName(item) == name {
			list.Content[i], replaced = server, true
		}
	}
	if !replaced {
		list.Content = append(list.Content, server)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// itemName is the name: of a mapping node, "" without one.
func itemName(m *yaml.Node) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "name" {
			return m.Content[i+1].Value
		}
	}
	return ""
}

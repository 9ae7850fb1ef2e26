module github.com/handoff-fsm/handoff-fsm

go 1.26.8

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/fsnotify/fsnotify v1.10.1
	github.com/looplab/fsm v1.0.3
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.49.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

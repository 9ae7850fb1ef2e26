module github.com/handoff-fsm/handoff-fsm

go 1.26.8

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/looplab/fsm v1.0.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

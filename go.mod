module github.com/handoff-fsm/handoff-fsm

go 1.26.8

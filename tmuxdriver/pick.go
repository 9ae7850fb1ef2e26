package tmuxdriver

import (
	"context"
	"fmt"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Picked is the provider a Picker names for a pane: its name, its
// classifier (also its composer when it is a handoff.Composer), and the
// pause its CLI needs between the paste and Enter (0: the driver's
// default; Options.EnterDelay, when given, wins).
type Picked struct {
	Name       string
	Classifier handoff.Classifier
	EnterDelay time.Duration
}

// A Picker names the provider of a pane from one look at it: its
// foreground command, its title and its screen (--provider auto; the
// registry's rule, dispatchstate.PickProvider). Its error (no provider,
// or more than one, recognises the pane) is the error of every look.
type Picker func(command, title, capture string) (Picked, error)

// picking is a pane's provider while Options.Pick has not named it yet.
type picking struct {
	mu         sync.Mutex
	done       bool
	name       string
	err        error
	delayGiven bool
}

// pickOn names the pane's provider from snap, the pane's first look that
// finds its agent running; later looks keep it. Until then a look (of a
// dead pane, say) picks nothing and its own error says why.
func (p *Pane) pickOn(snap Snapshot) error {
	if p.pick == nil {
		return nil
	}
	p.pick.mu.Lock()
	defer p.pick.mu.Unlock()
	if p.pick.done || p.alive(snap) != nil {
		return p.pick.err
	}
	p.pick.done = true
	picked, err := p.o.Pick(snap.Command, snap.Title, snap.Capture)
	if err == nil && picked.Classifier == nil {
		err = fmt.Errorf("provider %q has no classifier", picked.Name)
	}
	if err != nil {
		p.pick.err = fmt.Errorf("pane %s: %w", p.o.Target, err)
		return p.pick.err
	}
	p.pick.name = picked.Name
	p.o.Classifier = picked.Classifier
	if p.o.Composer == nil {
		p.o.Composer, _ = picked.Classifier.(handoff.Composer)
	}
	if !p.pick.delayGiven && picked.EnterDelay > 0 {
		p.o.EnterDelay = picked.EnterDelay
	}
	return nil
}

// picked makes sure Options.Pick has named the provider before a call
// that needs its rules first (Send's composer): it looks once when no
// look has yet. Nothing for a pane opened with its Classifier.
func (p *Pane) picked(ctx context.Context) error {
	if p.pick == nil {
		return nil
	}
	p.pick.mu.Lock()
	done, err := p.pick.done, p.pick.err
	p.pick.mu.Unlock()
	if done {
		return err
	}
	snap, err := p.read(ctx, p.o.History)
	if err != nil {
		return err
	}
	if err := p.alive(snap); err != nil {
		return err
	}
	return nil
}

// Provider is the provider Options.Pick named for the pane, looking at it
// now when it has not looked yet: the name, or the look's or the pick's
// error. "" for a pane opened with its Classifier.
func (p *Pane) Provider(ctx context.Context) (string, error) {
	if err := p.picked(ctx); err != nil || p.pick == nil {
		return "", err
	}
	p.pick.mu.Lock()
	defer p.pick.mu.Unlock()
	return p.pick.name, p.pick.err
}

// Package harness holds what the catalogue's Go implementations share:
// the stress runner that records their histories (operations whose input
// is a lang.Op); package harnesstest runs them under Go's race detector.
package harness

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Config says what a stress run does: which variant of a Go
// implementation (and which protocol parameters), how many client
// goroutines, how many rounds, and the seed of the schedule perturbation.
type Config struct {
	Variant string
	Params  map[string]string
	Clients int
	Rounds  int
	Seed    uint64
}

// Deadline is how long a round may take before the stress run declares a
// deadlock: a round's goroutines do a handful of operations, so a round
// that has not finished in this time never will.
var Deadline = time.Second

// ErrDeadlock is returned (wrapped) by a stress run whose round made no
// progress before Deadline; its goroutines stay blocked.
var ErrDeadlock = errors.New("deadlock")

// Round is one round of a stress run: a fresh object under test, and the
// goroutines that operate on it.
type Round struct {
	Object int        // the round's object, 1-based, recorded with each operation
	Rand   *rand.Rand // setup choices of this round (use before the goroutines start)
	run    *run
	bodies []func(Client)
	wg     sync.WaitGroup
	ids    int
}

// Client is one goroutine of a round, as porcupine's client.
type Client struct {
	ID    int
	round *Round
}

type run struct {
	mu    sync.Mutex
	ops   []porcupine.Operation
	start time.Time
}

// Go adds a goroutine to the round; the round's goroutines are released
// together, each after a few random yields.
func (r *Round) Go(body func(Client)) {
	r.bodies = append(r.bodies, body)
}

// Spawn starts a goroutine at once, as a thread spawned by one of the
// round's goroutines (the spawn orders what came before it); the round
// waits for it too.
func (r *Round) Spawn(body func(Client)) {
	r.wg.Add(1)
	c := r.client()
	go func() {
		defer r.wg.Done()
		body(c)
	}()
}

func (r *Round) client() Client {
	r.run.mu.Lock()
	defer r.run.mu.Unlock()
	c := Client{ID: r.ids, round: r}
	r.ids++
	return c
}

// Do runs one operation of the client and records it with monotonic
// timestamps: called just before f and returned just after.
func (c Client) Do(name string, f func() int64) int64 {
	t0 := time.Since(c.round.run.start).Nanoseconds()
	out := f()
	t1 := time.Since(c.round.run.start).Nanoseconds()
	c.round.run.mu.Lock()
	c.round.run.ops = append(c.round.run.ops, porcupine.Operation{ClientId: c.ID, Input: lang.Op{Object: c.round.Object, Name: name}, Call: t0, Output: out, Return: t1})
	c.round.run.mu.Unlock()
	return out
}

// Perturb yields the processor a random number of times (none most
// often): a scheduling perturbation point that widens race windows.
func Perturb() {
	for n := rand.IntN(4); n > 1; n-- {
		runtime.Gosched()
	}
}

// Stress runs cfg.Rounds rounds; setup builds each round's object and
// adds its goroutines. It returns the recorded history, and ErrDeadlock
// (with the history so far) when a round does not finish.
func Stress(cfg Config, setup func(*Round)) ([]porcupine.Operation, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	ru := &run{start: time.Now()}
	for i := 0; i < cfg.Rounds; i++ {
		r := &Round{Object: i + 1, Rand: rng, run: ru}
		setup(r)
		clients := make([]Client, len(r.bodies))
		yields := make([]int, len(r.bodies))
		for k := range r.bodies {
			clients[k] = r.client()
			yields[k] = rng.IntN(3)
		}
		gate := make(chan struct{})
		var ready sync.WaitGroup
		ready.Add(len(r.bodies))
		r.wg.Add(len(r.bodies))
		for k, body := range r.bodies {
			go func() {
				defer r.wg.Done()
				ready.Done()
				<-gate
				for range yields[k] {
					runtime.Gosched()
				}
				body(clients[k])
			}()
		}
		ready.Wait()
		close(gate)
		done := make(chan struct{})
		go func() { r.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(Deadline):
			ru.mu.Lock()
			defer ru.mu.Unlock()
			return append([]porcupine.Operation(nil), ru.ops...), fmt.Errorf("%w: round %d made no progress in %v", ErrDeadlock, i+1, Deadline)
		}
	}
	return ru.ops, nil
}

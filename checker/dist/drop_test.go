package dist

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestJobNobodyFinishes: a worker that takes jobs and never answers (as
// if it died on each) has every job redelivered until the server drops
// it; the comparison then fails naming the cell, rather than wait.
func TestJobNobodyFinishes(t *testing.T) {
	s, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nc, err := Dial(s.URL(), DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		js, err := jetstream.New(nc)
		if err != nil {
			return
		}
		for ctx.Err() == nil {
			cons, err := js.Consumer(ctx, jobStream, workers)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
			if err != nil {
				continue
			}
			for range batch.Messages() {
				// taken, never acknowledged
			}
		}
	}()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := model.Lookup("sc")
	_, _, err = Compare(ctx, nc, pr, checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{sc}}, Options{AckWait: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "fixed under sc: delivered to 5 workers, none of which finished it") {
		t.Errorf("got %v", err)
	}
}

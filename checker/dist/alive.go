package dist

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// beat says on alivePrefix+id, every alivePeriod until stop is called,
// that the coordinator of the run or search id still waits for its work.
func beat(nc *nats.Conn, id string) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(alivePeriod)
		defer t.Stop()
		for {
			nc.Publish(alivePrefix+id, nil)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return sync.OnceFunc(func() { close(done) })
}

// listener hears a coordinator's beat.
type listener struct {
	heard atomic.Int64 // when the coordinator last spoke (Unix ns)
	sub   *nats.Subscription
}

// listen starts listening to the coordinator of id, counting it heard now.
func listen(nc *nats.Conn, id string) (*listener, error) {
	l := &listener{}
	l.heard.Store(time.Now().UnixNano())
	sub, err := nc.Subscribe(alivePrefix+id, func(*nats.Msg) { l.heard.Store(time.Now().UnixNano()) })
	if err != nil {
		return nil, err
	}
	l.sub = sub
	return l, nil
}

// silent reports whether the coordinator has said nothing for longer
// than d: it is gone, and nobody waits for its work.
func (l *listener) silent(d time.Duration) bool {
	return time.Since(time.Unix(0, l.heard.Load())) > d
}

// close stops listening.
func (l *listener) close() { l.sub.Unsubscribe() }

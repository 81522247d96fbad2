package checker_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// TestDeadlockCoversAwait checks the deadlock property on waits: a thread
// blocked at an await whose condition the final memory leaves false waits
// forever (a deadlock, as one blocked on a held mutex), while an await
// another thread satisfies, and any assume (a pruning, also of the threads
// that wait for the thread it stopped), is no deadlock —
// under every model and both engines.
func TestDeadlockCoversAwait(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		deadlock  bool
		every     bool // in every final state
		msg       string
	}{
		{"await nobody satisfies", `
shared flag = 0
property deadlock
thread a {
  await load(flag, acq) == 1
}`, true, true, "a waits at the await of"},
		{"await satisfied", `
shared flag = 0
property deadlock
thread a {
  await load(flag, acq) == 1
}
thread b {
  store(flag, 1, rel)
}`, false, false, ""},
		{"await of a value never written", `
shared flag = 0
property deadlock
thread a {
  await load(flag, acq) == 1
}
thread b {
  store(flag, 2, rel)
}`, true, true, ""},
		{"await on a compare-exchange that never succeeds", `
shared l = 1
property deadlock
thread t {
  await cas(l, 0, 1, acq, acq) == 1
}`, true, true, "t waits at the await of"},
		{"await on a compare-exchange another thread lets succeed", `
shared l = 1
property deadlock
thread t {
  await cas(l, 0, 1, acq, acq) == 1
}
thread u {
  store(l, 0, rel)
}`, false, false, ""},
		{"lock-order inversion with compare-exchange locks", `
shared l1 = 0
shared l2 = 0
property deadlock
thread a {
  await cas(l1, 0, 1, acq, rlx) == 1
  await cas(l2, 0, 1, acq, rlx) == 1
  store(l2, 0, rel)
  store(l1, 0, rel)
}
thread b {
  await cas(l2, 0, 1, acq, rlx) == 1
  await cas(l1, 0, 1, acq, rlx) == 1
  store(l1, 0, rel)
  store(l2, 0, rel)
}`, true, false, "waits at the await of"},
		{"circular wait", `
shared fa = 0
shared fb = 0
property deadlock
thread a {
  await load(fb, acq) == 1
  store(fa, 1, rel)
}
thread b {
  await load(fa, acq) == 1
  store(fb, 1, rel)
}`, true, true, "b waits at the await of"},
		{"assume prunes", `
shared flag = 0
property deadlock
thread a {
  assume load(flag, acq) == 1
}`, false, false, ""},
		{"a wait for a thread an assume stopped", `
shared flag = 0
shared done = 0
property deadlock
thread a {
  assume load(flag, acq) == 1
  store(done, 1, rel)
}
thread b {
  await load(done, acq) == 1
}`, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := compileProtocol(t, "await", tc.src)
			for _, m := range model.All() {
				for _, eng := range []explore.Engine{explore.EngineDPOR, explore.EngineStates} {
					if eng == explore.EngineStates && checker.StatesUnsupported(p, m) != "" {
						continue
					}
					rep, err := checker.Check(p, m, []checker.Property{checker.Deadlock}, explore.Options{Engine: eng})
					if err != nil {
						t.Fatal(err)
					}
					pr := rep.Props[0]
					if got := pr.Status == checker.Violated; got != tc.deadlock {
						t.Errorf("%s by %s: deadlock %s (%s), want violated=%v", m.Name, eng, pr.Status, pr.Message, tc.deadlock)
					}
					if tc.every && pr.Violations != rep.Stats.Executions {
						t.Errorf("%s by %s: %d of %d executions deadlock, want all", m.Name, eng, pr.Violations, rep.Stats.Executions)
					}
					if !strings.Contains(pr.Message, tc.msg) {
						t.Errorf("%s by %s: %q lacks %q", m.Name, eng, pr.Message, tc.msg)
					}
				}
			}
		})
	}
}

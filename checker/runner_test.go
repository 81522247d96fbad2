package checker_test

import (
	"errors"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestLocalRunner checks the local runner: every cell reported once, one
// call at a time, on any number of goroutines; and an error of the
// callback's ends the run with that error, the callback not called again.
func TestLocalRunner(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	var cells []checker.Cell
	for _, v := range []string{"original", "fixed", "dcl"} {
		in, err := pr.Instance(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range model.All() {
			cells = append(cells, checker.Cell{Instance: in, Model: m})
		}
	}
	for _, jobs := range []int{1, 2, 4} {
		seen := make([]int, len(cells))
		busy := false
		err := checker.Local{Jobs: jobs}.Run(cells, explore.Options{}, func(i int, rep *checker.Report, err error) error {
			if busy {
				t.Errorf("jobs %d: the callback was called while a call was under way", jobs)
			}
			busy = true
			defer func() { busy = false }()
			if err != nil || rep == nil || rep.Model != cells[i].Model {
				t.Errorf("jobs %d: cell %s: report %v, error %v", jobs, cells[i].Name(), rep, err)
			}
			seen[i]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range seen {
			if n != 1 {
				t.Errorf("jobs %d: cell %s reported %d times", jobs, cells[i].Name(), n)
			}
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = checker.Local{Jobs: 2}.Run(cells, explore.Options{}, func(int, *checker.Report, error) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("after an error: Run returned %v, the callback was called %d times", err, calls)
	}
}

package render

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
)

// TestProgress: each text replaces the line, after the cell when one is
// named; Clear erases a line shown, once; a line that is off writes
// nothing.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := &Progress{w: &buf, on: true}
	p.Stats(explore.Stats{States: 10, Graphs: 20, Executions: 2, Elapsed: 2 * time.Second})
	p.Cell(2, 12, "fixed under rc11")
	p.Stats(explore.Stats{Executions: 3, Graphs: 8, Elapsed: time.Second})
	p.Clear()
	p.Clear()
	got := strings.Split(buf.String(), "\r\033[K")
	if len(got) != 5 || got[0] != "" || got[4] != "" ||
		!strings.HasPrefix(got[1], "10 states (10/s), 2 final, ") ||
		got[2] != "cell 3 of 12 (fixed under rc11): starting" ||
		!strings.HasPrefix(got[3], "cell 3 of 12 (fixed under rc11): 3 executions, 8 graphs (8/s), ") {
		t.Errorf("progress line %q", got)
	}
	if NewProgress(os.Stderr, true).On() || (*Progress)(nil).On() {
		t.Error("a line that is off says it is on")
	}
	buf.Reset()
	off := &Progress{w: &buf}
	off.Show("nothing")
	off.Stats(explore.Stats{States: 1})
	off.Clear()
	if buf.Len() != 0 {
		t.Errorf("a line that is off wrote %q", buf.String())
	}
}

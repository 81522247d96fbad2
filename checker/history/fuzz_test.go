package history_test

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/ordercheck/ordercheck/checker/history"
)

// FuzzHistory checks that no input makes the history reader panic, and
// that a history it accepts writes and reads back unchanged.
func FuzzHistory(f *testing.F) {
	for _, path := range []string{"../../traces/histories/execenv-original-go.bad.json", "../../traces/histories/dlsym-unordered-rc11.bad.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := history.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := h.Write(&b); err != nil {
			t.Fatal(err)
		}
		again, err := history.Read(&b)
		if err != nil {
			t.Fatalf("an accepted history, written, does not read back: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(h, again) {
			t.Fatalf("read back differently:\n%+v\n%+v", h, again)
		}
	})
}

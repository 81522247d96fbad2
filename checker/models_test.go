package checker_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

func TestLookupModels(t *testing.T) {
	ms, err := checker.LookupModels([]string{"sc", "tso"})
	if err != nil || len(ms) != 2 || ms[0] != model.SC || ms[1].Name != "tso" {
		t.Errorf("LookupModels(sc, tso) = %v, %v", ms, err)
	}
	if ms, err := checker.LookupModels(nil); err != nil || ms != nil {
		t.Errorf("LookupModels(nil) = %v, %v: want none", ms, err)
	}
	if _, err := checker.LookupModels([]string{"sc", "tos"}); err == nil || !strings.Contains(err.Error(), "tos") {
		t.Errorf("LookupModels(sc, tos): %v, want an error naming tos", err)
	}
}

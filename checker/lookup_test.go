package checker_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// catalogueInstance compiles variant of the catalogue protocol name with
// the parameters params, failing t on an error.
func catalogueInstance(t testing.TB, name, variant string, params map[string]string) *checker.Instance {
	t.Helper()
	pr, err := protocols.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance(variant, params)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

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

func TestHasProp(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.HasProp(); err != nil {
		t.Errorf("HasProp(): %v, want none asked, none missing", err)
	}
	if err := pr.HasProp("data-race", "lib-init"); err != nil {
		t.Errorf("HasProp(data-race, lib-init): %v", err)
	}
	if err := pr.HasProp("data-race", "liveness", "lib-int"); err == nil || !strings.Contains(err.Error(), "no property liveness") {
		t.Errorf("HasProp(data-race, liveness, lib-int): %v, want the first missing named", err)
	}
}

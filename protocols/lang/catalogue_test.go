package lang

import (
	"strings"
	"testing"
)

// TestExpectCatalogue resolves the catalogue's protocol files.
func TestExpectCatalogue(t *testing.T) {
	models := []string{"sc", "tso", "arm", "riscv", "rc11", "rc11-consume"}
	for _, tc := range []struct {
		file, params, variant, model, want string
	}{
		{"dlsym", "", "original", "rc11", "data-race lib-init linearizability"},
		{"dlsym", "", "original", "sc", "data-race"},
		{"dlsym", "", "consume", "rc11", "data-race lib-init linearizability"},
		{"dlsym", "", "consume", "rc11-consume", "holds"},
		{"dlsym", "", "consume-indep", "rc11-consume", "data-race lib-init linearizability"},
		{"dlsym", "", "fixed", "rc11", "holds"},
		{"dlsym", "", "codegen", "arm", "data-race"},
		{"dlsym", "", "consume-indep", "riscv", "data-race lib-init linearizability"},
		{"dlsym", "", "fixed", "riscv", "holds"},
		{"execenv", "", "original", "tso", "data-race deliver linearizability"},
		{"execenv", "", "pr2685", "rc11", "holds"},
		{"execenv", "", "temp-env", "sc", "start-once tls"},
		{"execenv", "SPAWN=embedder", "pr2685", "sc", "deadlock locking"},
		{"execenv", "SPAWN=embedder", "pr2685", "rc11-consume", "deadlock locking"},
		{"execenv", "SPAWN=embedder", "original", "rc11", "deadlock locking"},
		{"execenv", "SPAWN=embedder", "pr2882", "tso", "holds"},
		{"cluster", "", "original", "sc", "data-race deliver linearizability"},
		{"cluster", "", "atomic-acqrel", "rc11", "deliver linearizability"},
		{"cluster", "", "exc-in-env", "tso", "holds"},
		{"cluster", "", "atomic-relaxed", "arm", "deliver linearizability"},
	} {
		t.Run(strings.Join([]string{tc.file, tc.params, tc.variant, tc.model}, "/"), func(t *testing.T) {
			pr, err := ParseFile("../" + tc.file + "/" + tc.file + ".oc")
			if err != nil {
				t.Fatal(err)
			}
			configs, err := pr.Expectations(models)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range configs {
				if paramKeyOf(c.Params) != tc.params {
					continue
				}
				for _, cell := range c.Cells {
					if cell.Variant == tc.variant && cell.Model == tc.model {
						if got := cellString(cell); got != tc.want {
							t.Errorf("got %s, want %s", got, tc.want)
						}
						return
					}
				}
			}
			t.Errorf("no cell")
		})
	}
	for _, tc := range []struct {
		file    string
		configs int
	}{{"dlsym", 1}, {"execenv", 2}, {"cluster", 1}} {
		t.Run(tc.file+"/covered", func(t *testing.T) {
			pr, err := ParseFile("../" + tc.file + "/" + tc.file + ".oc")
			if err != nil {
				t.Fatal(err)
			}
			configs, err := pr.Expectations(models)
			if err != nil {
				t.Fatal(err)
			}
			if len(configs) != tc.configs {
				t.Errorf("%d configurations, want %d", len(configs), tc.configs)
			}
			for _, c := range configs {
				if len(c.Cells) != len(pr.Variants)*len(models) {
					t.Errorf("%d cells with %v, want %d", len(c.Cells), c.Params, len(pr.Variants)*len(models))
				}
				for _, cell := range c.Cells {
					if cell.Clause == nil {
						t.Errorf("%s under %s with %v is not covered", cell.Variant, cell.Model, c.Params)
					}
				}
			}
		})
	}
}

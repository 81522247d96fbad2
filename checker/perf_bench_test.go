package checker_test

import (
	"fmt"
	"testing"

	"github.com/ordercheck/ordercheck/protocols"
)

// BenchmarkDlsym covers the dlsym rows of docs/performance.md: the
// catalogue's fixed variant with N callers.
func BenchmarkDlsym(b *testing.B) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		inst, err := pr.Compile("fixed", map[string]string{"N": fmt.Sprint(n)})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []string{"sc", "rc11"} {
			b.Run(fmt.Sprintf("N=%d/%s", n, m), func(b *testing.B) { benchExplore(b, inst.Prog, m) })
		}
	}
}

package model_test

import (
	"fmt"
	"log"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// The registered models, each with the models it is within (every
// execution it allows, they allow too).
func ExampleAll() {
	for _, m := range model.All() {
		var within []string
		for _, w := range m.Within {
			within = append(within, w.Name)
		}
		fmt.Println(m.Name, within)
	}
	// Output:
	// sc [tso arm riscv]
	// tso [rc11]
	// arm []
	// riscv []
	// rc11 []
	// rc11-consume [rc11]
}

// A model's axioms, as its .cat file states them.
func ExampleLookup() {
	m, err := model.Lookup("rc11")
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range m.Axioms {
		fmt.Println(a.Name)
	}
	// Output:
	// no-thin-air
	// atomicity
	// coherence
	// coherence-rmw
	// sc
}

// A program and one of its final states, named as herd7 names them.
func ExampleProgram_FormatState() {
	p, err := litmus.Parse("sb.litmus", `C SB
{}
P0(atomic_int *x, atomic_int *y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
}
P1(atomic_int *x, atomic_int *y) {
  atomic_store_explicit(y, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
}
exists (0:r0=0 /\ 1:r0=0)
`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, len(p.Threads), "threads")
	fmt.Println(p.FormatState(p.Final.Show, &model.FinalState{Regs: [][]int64{{0}, {0}}, Mem: []int64{1, 1}}))
	// Output:
	// SB 2 threads
	// 0:r0=0; 1:r0=0;
}

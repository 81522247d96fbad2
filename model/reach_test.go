package model

import (
	"slices"
	"testing"
)

// TestReachable checks which instructions a thread may reach, branch by
// branch: a condition on constants takes one way, one on a register both.
func TestReachable(t *testing.T) {
	r := RegExpr(0)
	load := Instr{Op: OpLoad, Dst: 0, Addr: Const(AddrOf(0)), Ord: Rlx}
	store := Instr{Op: OpStore, Addr: Const(AddrOf(0)), Val: Const(1), Ord: Rel}
	branch := func(cond *Expr, target int) Instr { return Instr{Op: OpBranch, Cond: cond, Target: target} }
	for _, c := range []struct {
		name string
		code []Instr
		want []bool
	}{
		{"straight", []Instr{load, store}, []bool{true, true}},
		{"taken on constants", []Instr{branch(Bin(Eq, Const(1), Const(1)), 2), store, load}, []bool{true, false, true}},
		{"not taken on constants", []Instr{branch(Const(0), 2), store, load}, []bool{true, true, true}},
		{"if-else on constants", []Instr{branch(Const(0), 3), store, {Op: OpJump, Target: 4}, load, store}, []bool{true, true, true, false, true}},
		{"on a register", []Instr{load, branch(r, 3), store, load}, []bool{true, true, true, true}},
		{"an assume that fails", []Instr{{Op: OpAssume, Cond: Const(0)}, store}, []bool{true, false}},
		{"an assume on a register", []Instr{load, {Op: OpAssume, Cond: r}, store}, []bool{true, true, true}},
		{"a loop bound", []Instr{{Op: OpBound}, store}, []bool{true, false}},
		{"division by zero: either way", []Instr{branch(Bin(Div, Const(1), Const(0)), 3), {Op: OpJump, Target: 4}, store, load, store}, []bool{true, true, false, true, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Program{Locs: []Location{{Name: "x"}}, Threads: []Thread{{Name: "t", Regs: []string{"r"}, Init: []int64{0}, Code: c.code}}}
			if got := p.Reachable(0); !slices.Equal(got, c.want) {
				t.Fatalf("reachable %v, want %v", got, c.want)
			}
		})
	}
}

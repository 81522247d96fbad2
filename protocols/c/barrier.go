package c

import (
	"fmt"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"

	"modernc.org/cc/v4"
)

// barrier is a pthread_barrier_t of count threads: a round ends when
// count threads have arrived in it. Thread t keeps its round number in
// NAME#round[t] (which only t reads and writes), announces its arrival in
// round k with a release store of k to NAME#arrive[k%2 + 2t], and waits
// until count of the slots of parity k%2 hold k (acquire loads). The
// arrivals write distinct locations, so the order in which threads
// arrive makes no execution of its own (as GenMC's barrier-aware
// exploration counts one). The two parities keep the slot a thread
// already in round k+1 writes apart from the round-k ones, and no thread
// gets two rounds ahead of another (it would need the other's arrival in
// between), so a round-k wait can only read k or an older round there.
type barrier struct {
	at    model.Pos
	count int64 // 0: pthread_barrier_init has not set it
	waits []barrierWait
}

// barrierWait is one pthread_barrier_wait: its await, whose condition
// needs the threads (barriers), the register holding the round it waits
// for, and the function it is in.
type barrierWait struct {
	await *lang.AssumeStmt
	round string
	in    string
}

// isBarrier reports whether t is pthread_barrier_t.
func isBarrier(t cc.Type) bool {
	st, ok := t.(*cc.StructType)
	return ok && st.NumFields() == 1 && st.FieldByIndex(0).Name() == "__ordercheck_barrier"
}

// barrierOf resolves &b to the global barrier b.
func (f *fn) barrierOf(e cc.ExpressionNode) (*global, error) {
	if u, ok := stripCasts(e).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		if p, ok := stripCasts(u.CastExpression).(*cc.PrimaryExpression); ok {
			if g, ok := f.l.globalOf(p); ok && g.barrier != nil {
				return g, nil
			}
		}
	}
	return nil, f.errAt(e, "a barrier must be a global pthread_barrier_t passed as &b (arrays of barriers are not supported)")
}

// barrierStmt lowers pthread_barrier_init, _wait and _destroy.
func (f *fn) barrierStmt(c *cc.PostfixExpression, name string, args []cc.ExpressionNode) ([]lang.Stmt, error) {
	g, err := f.barrierOf(args[0])
	if err != nil {
		return nil, err
	}
	b, at := g.barrier, f.pos(c)
	switch name {
	case "pthread_barrier_init":
		if !f.main {
			return nil, f.errAt(c, "a barrier is initialised in main only")
		}
		if !isZero(args[1]) {
			return nil, f.errAt(args[1], "barrier attributes are not supported: pass NULL")
		}
		v, pre, err := f.value(args[2])
		n, ok := fold(v)
		switch {
		case err != nil:
			return nil, err
		case !ok || len(pre) > 0 || n < 1:
			return nil, f.errAt(args[2], "a barrier's count must be a constant of at least 1")
		case b.count != 0:
			return nil, f.errAt(c, "barrier %s is initialised twice", g.name)
		}
		b.count = n
		return nil, nil
	case "pthread_barrier_destroy":
		return nil, nil
	}
	me := &lang.Name{Name: lang.ThreadIndex, At: at}
	k := f.temp(c)
	round := func() lang.Expr { return &lang.IndexExpr{Array: g.name + "#round", Index: me, At: at} }
	slot := &lang.IndexExpr{Array: g.name + "#arrive", Index: parity(k, &lang.BinExpr{Op: "*", X: &lang.Num{Val: 2, At: at}, Y: me, At: at}, at), At: at}
	await := &lang.AssumeStmt{Await: true, At: at}
	b.waits = append(b.waits, barrierWait{await, k, f.def.Declarator.Name()})
	return []lang.Stmt{
		&lang.AssignStmt{LHS: &lang.Name{Name: k, At: at}, RHS: &lang.BinExpr{Op: "+", X: round(), Y: &lang.Num{Val: 1, At: at}, At: at}, At: at},
		&lang.AssignStmt{LHS: round(), RHS: &lang.Name{Name: k, At: at}, At: at},
		&lang.MemStmt{Kind: "store", Args: []lang.Expr{slot, &lang.Name{Name: k, At: at}}, Ord: &lang.Value{Text: "rel", Pos: at, Fixed: true}, At: at},
		await,
	}, nil
}

// parity is k%2 + base: the slot of round k's parity.
func parity(k string, base lang.Expr, at model.Pos) lang.Expr {
	mod := &lang.BinExpr{Op: "%", X: &lang.Name{Name: k, At: at}, Y: &lang.Num{Val: 2, At: at}, At: at}
	return &lang.BinExpr{Op: "+", X: mod, Y: base, At: at}
}

// barriers declares each barrier's slots, one pair per thread now that
// the threads are known, and gives each wait its condition: count of the
// slots of its round's parity hold its round. Only the slots of the
// threads that can wait on the barrier are read: when there are count of
// them, the condition is that each holds the round, read in turn (a stale
// one ends the evaluation); when there are fewer, no round ends (at least
// count of them never do). More is refused: a round ends for the first
// count to arrive, which the slots do not say.
func (l *lowerer) barriers() error {
	n := int64(len(l.pr.Threads))
	reach := map[string]map[string]bool{} // a thread's root function → the functions it runs
	for _, g := range l.barrierGlobals {
		b := g.barrier
		if len(b.waits) == 0 {
			continue
		}
		if b.count == 0 {
			return &lang.Error{Pos: b.waits[0].await.At, Msg: "pthread_barrier_wait on " + g.name + ", which pthread_barrier_init in main does not initialise first"}
		}
		l.pr.Shared = append(l.pr.Shared,
			&lang.Shared{Name: g.name + "#round", Len: &lang.Num{Val: n, At: b.at}, Pos: b.at},
			&lang.Shared{Name: g.name + "#arrive", Len: &lang.Num{Val: 2 * n, At: b.at}, Pos: b.at})
		var waiters []int64
		for t, th := range l.pr.Threads {
			root := l.roots[th.Name]
			if reach[root] == nil {
				reach[root] = l.reachable(root)
			}
			for _, w := range b.waits {
				if reach[root][w.in] {
					waiters = append(waiters, int64(t))
					break
				}
			}
		}
		if int64(len(waiters)) > b.count {
			return &lang.Error{Pos: b.waits[0].await.At, Msg: fmt.Sprintf("barrier %s: %d threads can wait on it, more than its count %d (a round of some of them is not supported)", g.name, len(waiters), b.count)}
		}
		for _, w := range b.waits {
			at := w.await.At
			var cond lang.Expr
			for _, t := range waiters {
				load := &lang.CallExpr{Func: "load", Args: []lang.Expr{&lang.IndexExpr{Array: g.name + "#arrive", Index: parity(w.round, &lang.Num{Val: 2 * t, At: at}, at), At: at}}, Ords: []lang.Value{{Text: "acq", Pos: at, Fixed: true}}, At: at}
				var arrived lang.Expr = &lang.BinExpr{Op: "==", X: load, Y: &lang.Name{Name: w.round, At: at}, At: at}
				switch {
				case cond == nil:
				case int64(len(waiters)) == b.count:
					arrived = &lang.BinExpr{Op: "&&", X: cond, Y: arrived, At: at}
				default:
					arrived = &lang.BinExpr{Op: "+", X: cond, Y: arrived, At: at}
				}
				cond = arrived
			}
			if int64(len(waiters)) != b.count {
				cond = &lang.BinExpr{Op: ">=", X: cond, Y: &lang.Num{Val: b.count, At: at}, At: at}
			}
			w.await.Cond = cond
		}
	}
	return nil
}

// reachable returns the functions a thread whose root function is fn
// runs: fn and, in turn, the functions defined here that they call.
func (l *lowerer) reachable(fn string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		fd := l.funcs[name]
		if seen[name] || fd == nil {
			return
		}
		seen[name] = true
		walk(fd.CompoundStatement, func(n cc.Node) {
			if c, ok := n.(*cc.PostfixExpression); ok && c.Case == cc.PostfixExpressionCall {
				visit(calleeName(c))
			}
		})
	}
	visit(fn)
	return seen
}

package c

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// mutex resolves &m to the global mutex m.
func (f *fn) mutex(e cc.ExpressionNode) (lang.Expr, error) {
	if u, ok := stripCasts(e).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		if p, ok := stripCasts(u.CastExpression).(*cc.PrimaryExpression); ok {
			if g, ok := f.l.globalOf(p); ok && g.mutex {
				return &lang.Name{Name: g.name, At: f.pos(p)}, nil
			}
		}
	}
	return nil, f.errAt(e, "a mutex must be a global pthread_mutex_t passed as &m")
}

// threadKey names the pthread_t a create stores or a join reads: t, or
// t[k] for a constant k (handleName tells variables of one name apart).
func (f *fn) threadKey(e cc.ExpressionNode) (string, error) {
	switch x := stripCasts(e).(type) {
	case *cc.PrimaryExpression:
		if x.Case == cc.PrimaryExpressionIdent {
			if d, ok := x.ResolvedTo().(*cc.Declarator); ok {
				return f.l.handleName(d), nil
			}
			return x.Token.SrcStr(), nil
		}
	case *cc.PostfixExpression:
		if x.Case == cc.PostfixExpressionIndex {
			base, err := f.threadKey(x.PostfixExpression)
			if err != nil {
				return "", err
			}
			v, pre, err := f.value(x.ExpressionList)
			if n, ok := fold(v); ok && err == nil && len(pre) == 0 {
				return base + "[" + strconv.FormatInt(n, 10) + "]", nil
			}
		}
	}
	return "", f.errAt(e, "a thread handle must be a variable or an array element at a constant index")
}

// handleName names the pthread_t variable d declares: its name, or for a
// second variable of that name (a local of another function or block)
// the name and a number, t#1. Every declaration of a name with linkage
// (a global, an extern) is one variable.
func (l *lowerer) handleName(d *cc.Declarator) string {
	var id any = d
	if d.Linkage() != cc.None {
		id = d.Name()
	}
	if name, ok := l.handles[id]; ok {
		return name
	}
	name := d.Name()
	for n := 1; slices.Contains(slices.Collect(maps.Values(l.handles)), name); n++ {
		name = fmt.Sprintf("%s#%d", d.Name(), n)
	}
	l.handles[id] = name
	return name
}

// handleKey names the pthread_t that pthread_create's first argument
// points to: &t, &t[i], or t + i for an array t.
func (f *fn) handleKey(e cc.ExpressionNode) (string, error) {
	switch x := stripCasts(e).(type) {
	case *cc.UnaryExpression:
		if x.Case == cc.UnaryExpressionAddrof {
			return f.threadKey(x.CastExpression)
		}
	case *cc.AdditiveExpression:
		if x.Case == cc.AdditiveExpressionAdd {
			base, err := f.threadKey(x.AdditiveExpression)
			if err != nil {
				return "", err
			}
			v, pre, err := f.value(x.MultiplicativeExpression)
			if n, ok := fold(v); ok && err == nil && len(pre) == 0 {
				return base + "[" + strconv.FormatInt(n, 10) + "]", nil
			}
		}
	case *cc.PrimaryExpression:
		if d, ok := x.ResolvedTo().(*cc.Declarator); ok && x.Case == cc.PrimaryExpressionIdent && d.Type().Kind() == cc.Array {
			key, err := f.threadKey(x)
			return key + "[0]", err
		}
	}
	return "", f.errAt(e, "pthread_create's handle must be &t, &t[i] or t + i")
}

// startsOnce refuses pthread_create and pthread_join (verb: started,
// joined) outside main and the functions that run once.
func (f *fn) startsOnce(c *cc.PostfixExpression, verb string) error {
	if f.main || f.l.once[f.def.Declarator.Name()] {
		return nil
	}
	return f.errAt(c, "threads are %s in main or in a function that runs once (started or called at one place, outside loops, by main or such a function), so that each thread is known and starts once: %s runs more often", verb, f.def.Declarator.Name())
}

// create lowers pthread_create(&t, attr, start, arg) in main or a
// function that runs once: a spawn of a thread that runs start(arg).
func (f *fn) create(c *cc.PostfixExpression, args []cc.ExpressionNode) ([]lang.Stmt, error) {
	if err := f.startsOnce(c, "started"); err != nil {
		return nil, err
	}
	if f.loops > 0 {
		return nil, f.errAt(c, "pthread_create in a loop: the loop must count over constants (for (i = A; i < B; i++)) so that each thread is known")
	}
	key, err := f.handleKey(args[0])
	if err != nil {
		return nil, err
	}
	if v, ok := intValue(args[1]); !ok || v != 0 {
		return nil, f.errAt(args[1], "thread attributes are not supported: pass NULL")
	}
	p := startRoutine(args[2])
	if p == nil {
		return nil, f.errAt(args[2], "the start routine must be a function named here")
	}
	arg, pre, err := f.value(args[3])
	if err != nil {
		return nil, err
	}
	if len(pre) > 0 || readsRegister(arg, f.locals) {
		return nil, f.errAt(args[3], "a thread's argument must be a constant, a counted loop's variable or a global's address")
	}
	thread, err := f.l.threadFor(p.Token.SrcStr(), arg, c)
	if err != nil {
		return nil, err
	}
	f.l.joins[key] = thread
	return []lang.Stmt{&lang.SpawnStmt{Thread: thread, At: f.pos(c)}}, nil
}

// joinStmt lowers pthread_join(t, NULL) in main or a function that runs
// once: a wait for the thread's done flag (a release store at its end
// read by an acquire load, as a join synchronises).
func (f *fn) joinStmt(c *cc.PostfixExpression, args []cc.ExpressionNode) ([]lang.Stmt, error) {
	if err := f.startsOnce(c, "joined"); err != nil {
		return nil, err
	}
	if f.loops > 0 {
		return nil, f.errAt(c, "pthread_join in a loop: the loop must count over constants (for (i = A; i < B; i++))")
	}
	key, err := f.threadKey(args[0])
	if err != nil {
		return nil, err
	}
	thread, ok := f.l.joins[key]
	if !ok {
		return nil, f.errAt(args[0], "pthread_join of %s, which no pthread_create before it started", key)
	}
	if v, ok := intValue(args[1]); !ok || v != 0 {
		return nil, f.errAt(args[1], "a thread's result is not supported: pass NULL")
	}
	at := f.pos(c)
	flag := f.l.join(thread, at)
	load := &lang.CallExpr{Func: "load", Args: []lang.Expr{&lang.Name{Name: flag, At: at}}, Ords: []lang.Value{{Text: "acq", Pos: at, Fixed: true}}, At: at}
	return []lang.Stmt{&lang.AssumeStmt{Cond: &lang.BinExpr{Op: "==", X: load, Y: &lang.Num{Val: 1, At: at}, At: at}, Await: true, At: at}}, nil
}

// readsRegister reports whether e reads one of the locals' registers.
func readsRegister(e lang.Expr, locals map[string]string) bool {
	found := false
	var visit func(e lang.Expr)
	visit = func(e lang.Expr) {
		switch e := e.(type) {
		case *lang.Name:
			for _, r := range locals {
				found = found || r == e.Name
			}
		case *lang.BinExpr:
			visit(e.X)
			visit(e.Y)
		case *lang.UnExpr:
			visit(e.X)
		case *lang.CondExpr:
			visit(e.Cond)
			visit(e.Then)
			visit(e.Else)
		case *lang.CallExpr:
			found = true
		case *lang.DerefExpr:
			found = true
		}
	}
	visit(e)
	return found
}

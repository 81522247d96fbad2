package c

import (
	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// A function's stack objects are its locals that live in memory rather
// than in registers: those whose address is taken (other than as a
// compare-exchange's expected value), and local arrays and structs. Each
// is a block of the heap, allocated when the function starts, as a
// compiler lays out its frame, uninitialised until its declaration
// initialises it, and freed wherever the function returns — so that a
// pointer to it that outlives the call is a use after free, and a read
// before any write a read of uninitialised memory, as GenMC reports them.
// main's frame is never freed — its return ends the program — and is
// allocated once: its objects are shared variables (x@main), which the
// threads it starts may be given the address of, set where they are
// declared (a read before that sees zero, not uninitialised memory).

// stackObj is a stack object: the register holding its address.
type stackObj struct {
	reg    string
	atomic bool
	array  bool // an array: its name is its address
	record bool // a struct: read by its fields
}

// function lowers the body of the function f lowers, with its frame.
func (f *fn) function(cs *cc.CompoundStatement) (*lang.Block, error) {
	allocs, err := f.frame(cs)
	if err != nil {
		return nil, err
	}
	body, err := f.block(cs)
	if err != nil || len(allocs) == 0 {
		return body, err
	}
	at := f.pos(cs)
	if !f.main {
		var frees []lang.Stmt
		for _, s := range f.stackOrder {
			frees = append(frees, &lang.MemStmt{Kind: "free", Args: []lang.Expr{&lang.Name{Name: f.stack[s].reg, At: at}}, At: at})
		}
		body.Stmts = freeing(body.Stmts, frees)
		if n := len(body.Stmts); n == 0 || !isReturn(body.Stmts[n-1]) {
			body.Stmts = append(body.Stmts, frees...)
		}
	}
	body.Stmts = append(allocs, body.Stmts...)
	return body, nil
}

func isReturn(s lang.Stmt) bool { _, ok := s.(*lang.ReturnStmt); return ok }

// frame finds the function's stack objects and allocates them.
func (f *fn) frame(cs *cc.CompoundStatement) ([]lang.Stmt, error) {
	var out []lang.Stmt
	var err error
	walk(cs, func(n cc.Node) {
		d, ok := n.(*cc.Declaration)
		if !ok || err != nil || d.Case != cc.DeclarationDecl {
			return
		}
		for list := d.InitDeclaratorList; list != nil && err == nil; list = list.InitDeclaratorList {
			dd := list.InitDeclarator.Declarator
			t := dd.Type()
			if dd.IsTypename() || t.Kind() == cc.Function || dd.IsStatic() || dd.IsExtern() || isPthread(t) || (isMutex(t) && !f.main) {
				continue
			}
			k := t.Kind()
			if k != cc.Array && k != cc.Struct && (!dd.AddressTaken() || f.onlyCASExpected(dd)) {
				continue
			}
			if f.main {
				err = f.l.global(d, dd, nil, dd.Name()+"@main")
				continue
			}
			if k == cc.Union {
				err = f.errAt(dd, "unions are not supported")
				return
			}
			at := f.pos(dd)
			var size lang.Expr = &lang.Num{Val: locsOf(t), At: at}
			if st, ok := elemOf(t).(*cc.StructType); ok {
				name, e := f.l.heapType(st, dd)
				if e != nil {
					err = e
					return
				}
				if k == cc.Struct {
					size = &lang.Name{Name: name, At: at}
				}
			}
			if k == cc.Array && t.(*cc.ArrayType).IsVLA() {
				err = f.errAt(dd, "local array %s needs a constant length", dd.Name())
				return
			}
			name := dd.Name()
			if _, dup := f.stack[name]; dup {
				err = f.errAt(dd, "two locals of one function are called %s and live in memory: rename one", name)
				return
			}
			obj := stackObj{reg: "%" + name, atomic: atomicDecl(d.DeclarationSpecifiers, dd), array: k == cc.Array, record: k == cc.Struct}
			f.stack[name] = obj
			f.stackOrder = append(f.stackOrder, name)
			out = append(out, &lang.AssignStmt{LHS: &lang.Name{Name: obj.reg, At: at}, RHS: &lang.CallExpr{Func: "alloc", Args: []lang.Expr{size}, At: at}, At: at})
		}
	})
	return out, err
}

// freeing puts frees before every return of stmts, the function's own
// (the functions it calls are procedures of their own): a value returned
// is computed first, since it may read the frame.
func freeing(stmts []lang.Stmt, frees []lang.Stmt) []lang.Stmt {
	var out []lang.Stmt
	for _, s := range stmts {
		switch s := s.(type) {
		case *lang.ReturnStmt:
			for i, v := range s.Vals {
				if _, ok := v.(*lang.Num); ok {
					continue
				}
				tmp := &lang.Name{Name: "%ret", At: s.At}
				if i > 0 {
					tmp.Name += string(rune('0' + i))
				}
				out = append(out, &lang.AssignStmt{LHS: tmp, RHS: v, At: s.At})
				s.Vals[i] = tmp
			}
			out = append(out, frees...)
		case *lang.IfStmt:
			s.Then.Stmts = freeing(s.Then.Stmts, frees)
			if s.Else != nil {
				s.Else.Stmts = freeing(s.Else.Stmts, frees)
			}
		case *lang.WhileStmt:
			s.Body.Stmts = freeing(s.Body.Stmts, frees)
		case *lang.ForStmt:
			s.Body.Stmts = freeing(s.Body.Stmts, frees)
		}
		out = append(out, s)
	}
	return out
}

// mainInit lowers the initialiser of main's object g where it is
// declared (initMemory).
func (f *fn) mainInit(g *global, dd *cc.Declarator, init *cc.Initializer) ([]lang.Stmt, error) {
	at := f.pos(dd)
	return f.initMemory(dd, init, g.array || g.fields != nil, g.atomic, func(i int64) (lang.Expr, error) {
		switch {
		case g.fields != nil && g.array:
			return nil, f.errAt(init, "a local array of structs is initialised by assignments")
		case g.fields != nil:
			return cellOf(g, i, at), nil
		case g.array:
			return &lang.IndexExpr{Array: g.name, Index: &lang.Num{Val: i, At: at}, At: at}, nil
		}
		return &lang.Name{Name: g.name, At: at}, nil
	})
}

// cellOf names location i of struct g: a field, or an element of an
// array field.
func cellOf(g *global, i int64, at model.Pos) lang.Expr {
	for _, fd := range g.fields {
		n := int64(1)
		if fd.Len != nil {
			n = fd.Len.(*lang.Num).Val
		}
		if i < n {
			e := &lang.FieldExpr{Struct: g.name, Field: fd.Name, At: at}
			if fd.Len != nil {
				e.Sub = &lang.Num{Val: i, At: at}
			}
			return e
		}
		i -= n
	}
	panic("c: a cell past the end of a struct")
}

// stackInit lowers the initialiser of stack object obj (initMemory): its
// cells lie one after another from its address.
func (f *fn) stackInit(obj stackObj, dd *cc.Declarator, init *cc.Initializer) ([]lang.Stmt, error) {
	at := f.pos(dd)
	ptr := &lang.Name{Name: obj.reg, At: at}
	return f.initMemory(dd, init, obj.array || obj.record, obj.atomic, func(i int64) (lang.Expr, error) {
		return &lang.DerefExpr{Ptr: plus(ptr, i, at), At: at}, nil
	})
}

// initMemory lowers the initialiser of a local in memory, whose cells
// cell names (a scalar's is cell 0): a store of a scalar's value, or of
// each cell of an array's or struct's flat list of values and zero in
// the rest, as C initialises an aggregate. An atomic's stores are
// seq_cst, as its plain accesses are.
func (f *fn) initMemory(dd *cc.Declarator, init *cc.Initializer, aggregate, atomic bool, cell func(i int64) (lang.Expr, error)) ([]lang.Stmt, error) {
	at := f.pos(dd)
	var out []lang.Stmt
	store := func(i int64, v lang.Expr) error {
		lhs, err := cell(i)
		if err != nil {
			return err
		}
		if atomic {
			out = append(out, &lang.MemStmt{Kind: "store", Args: []lang.Expr{lhs, v}, Ord: &lang.Value{Text: "sc", Pos: at}, At: at})
		} else {
			out = append(out, &lang.AssignStmt{LHS: lhs, RHS: v, At: at})
		}
		return nil
	}
	if init.Case == cc.InitializerExpr {
		if aggregate {
			return nil, f.errAt(init, "an array or struct is initialised by a list of values")
		}
		v, pre, err := f.value(init.AssignmentExpression)
		if err != nil {
			return nil, err
		}
		out = pre
		return out, store(0, v)
	}
	n := locsOf(dd.Type())
	i := int64(0)
	for list := init.InitializerList; list != nil; list = list.InitializerList {
		if list.Designation != nil || list.Initializer.Case != cc.InitializerExpr || i >= n {
			return nil, f.errAt(list.Initializer, "only a flat list of values initialises a local array or struct")
		}
		v, pre, err := f.value(list.Initializer.AssignmentExpression)
		if err != nil {
			return nil, err
		}
		out = append(out, pre...)
		if err := store(i, v); err != nil {
			return nil, err
		}
		i++
	}
	for ; i < n; i++ {
		if err := store(i, &lang.Num{At: at}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// plus is p + i, or p when i is 0.
func plus(p lang.Expr, i int64, at model.Pos) lang.Expr {
	if i == 0 {
		return p
	}
	return &lang.BinExpr{Op: "+", X: p, Y: &lang.Num{Val: i, At: at}, At: at}
}

// elemOf is the innermost element type of an array type.
func elemOf(t cc.Type) cc.Type {
	for t.Kind() == cc.Array {
		t = t.(*cc.ArrayType).Elem()
	}
	return t
}

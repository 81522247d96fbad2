package c

import (
	"strconv"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// A struct is laid out as C lays it out, one location per scalar: a
// struct member in place, each element of an array member in turn. The
// protocol language holds a struct as scalars and arrays of scalars, so a
// member struct's fields are named by their path (in.a) and each element
// of an array of structs by its index (nodes[0].next); an array of arrays
// is one array of its scalars, row after row. An access through any chain
// of members and indexes (v.in.a, p->nodes[i].next) becomes one access
// at a lang.Place: where C's types put the member.

// structFields lays out the fields of struct st (of name, for messages).
func (l *lowerer) structFields(st *cc.StructType, name string, at cc.Node) ([]lang.Field, error) {
	var fs []lang.Field
	var add func(t cc.Type, path string) error
	add = func(t cc.Type, path string) error {
		switch t := t.(type) {
		case *cc.StructType:
			for i := range t.NumFields() {
				fd := t.FieldByIndex(i)
				switch {
				case fd.IsBitfield():
					return l.errAt(at, "field %s of %s: bit-fields are not supported", path+fd.Name(), name)
				case fd.Name() == "":
					return l.errAt(at, "an unnamed member of %s is not supported: name it", name)
				}
				if err := add(fd.Type(), path+fd.Name()+"."); err != nil {
					return err
				}
			}
			return nil
		case *cc.ArrayType:
			field := path[:len(path)-1]
			if t.IsVLA() || t.Len() <= 0 {
				return l.errAt(at, "field %s of %s needs a constant length", field, name)
			}
			if e := elemOf(t); e.Kind() == cc.Struct || e.Kind() == cc.Union {
				for k := range t.Len() {
					if err := add(t.Elem(), field+"["+strconv.FormatInt(k, 10)+"]."); err != nil {
						return err
					}
				}
				return nil
			}
			fs = append(fs, lang.Field{Name: field, Len: &lang.Num{Val: locsOf(t), At: l.pos(at)}})
		case *cc.UnionType:
			return l.errAt(at, "field %s of %s: unions are not supported", path[:len(path)-1], name)
		default:
			fs = append(fs, lang.Field{Name: path[:len(path)-1]})
		}
		if len(fs) > maxMembers {
			return l.errAt(at, "struct %s has more than %d members", name, maxMembers)
		}
		return nil
	}
	return fs, add(st, "")
}

// maxMembers bounds the scalars and arrays a struct lays out.
const maxMembers = 1 << 16

// isMember reports whether e accesses a member of a struct: s.f, p->f, or
// an element of an array member (s.f[i], p->f[i][j]).
func isMember(e *cc.PostfixExpression) bool {
	switch e.Case {
	case cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
		return true
	case cc.PostfixExpressionIndex:
		b, ok := e.PostfixExpression.(*cc.PostfixExpression)
		return ok && isMember(b) && memberType(b).Kind() == cc.Array
	}
	return false
}

// memberType is the type of member access e before an array decays to a
// pointer (the type of the expression is the decayed one).
func memberType(e *cc.PostfixExpression) cc.Type {
	switch e.Case {
	case cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
		if fd := e.Field(); fd != nil {
			return fd.Type()
		}
	case cc.PostfixExpressionIndex:
		if b, ok := e.PostfixExpression.(*cc.PostfixExpression); ok && isMember(b) {
			if arr, ok := memberType(b).(*cc.ArrayType); ok {
				return arr.Elem()
			}
		}
	}
	return e.Type()
}

// member lowers an access to a member (isMember), and says whether it is
// atomic. The chain from e down to the struct it starts from gives the
// member's offset, and at most one index (the outermost); a chain that
// indexes again starts from the address of its inner element.
func (f *fn) member(e *cc.PostfixExpression) (lang.Expr, bool, []lang.Stmt, error) {
	at := f.pos(e)
	pl := &lang.Place{}
	var (
		sub  cc.ExpressionNode
		text string // the chain's text below the struct it starts from
		base cc.ExpressionNode
		ptr  bool // base is a pointer to the struct (p->f)
	)
walk:
	for cur := e; ; {
		switch cur.Case {
		case cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
			st := structOf(cur.PostfixExpression.Type())
			if st == nil {
				return nil, false, nil, f.errAt(cur, "%s is not a struct", cc.NodeSource(cur.PostfixExpression))
			}
			pl.Off += memberOff(st, cur.Token2.SrcStr())
			text = "." + cur.Token2.SrcStr() + text
			base, ptr = cur.PostfixExpression, cur.Case == cc.PostfixExpressionPSelect
		case cc.PostfixExpressionIndex:
			if sub != nil {
				base = cur
				break walk
			}
			arr := memberType(cur.PostfixExpression.(*cc.PostfixExpression)).(*cc.ArrayType)
			sub, pl.Len, pl.Stride = cur.ExpressionList, arr.Len(), locsOf(arr.Elem())
			pl.Tail, text = text, ""
			base = cur.PostfixExpression
		}
		next, ok := base.(*cc.PostfixExpression)
		if ptr || !ok || !isMember(next) {
			break
		}
		cur = next
	}
	if arr, ok := memberType(e).(*cc.ArrayType); ok && sub == nil {
		// A whole array member, named for its address.
		pl.Len, pl.Stride = arr.Len(), locsOf(arr.Elem())
	}
	field := text
	if len(field) > 0 && field[0] == '.' {
		field = field[1:]
	}
	var idx lang.Expr
	var pre []lang.Stmt
	if sub != nil {
		var err error
		if idx, pre, err = f.value(sub); err != nil {
			return nil, false, nil, err
		}
	}
	atomic := atomicType(e.Type())
	if !ptr {
		if p, ok := base.(*cc.PrimaryExpression); ok {
			if g, ok := f.l.globalOf(p); ok && g.fields != nil && !g.array {
				return &lang.FieldExpr{Struct: g.name, Field: field, Sub: idx, Place: pl, At: at}, atomic, pre, nil
			}
		}
		if b, ok := base.(*cc.PostfixExpression); ok {
			if g, flat, pre2, ok, err := f.element(b); err != nil {
				return nil, false, nil, err
			} else if ok && g.fields != nil {
				return &lang.FieldExpr{Struct: g.name, Index: flat, Field: field, Sub: idx, Place: pl, At: at}, atomic, append(pre2, pre...), nil
			}
		}
	}
	var p lang.Expr
	var pre2 []lang.Stmt
	var err error
	if ptr {
		p, pre2, err = f.value(base)
	} else {
		p, pre2, err = f.addressOf(base)
	}
	if err != nil {
		return nil, false, nil, err
	}
	return &lang.ArrowExpr{Ptr: p, Field: field, Sub: idx, Place: pl, At: at}, atomic, append(pre2, pre...), nil
}

// structOf is the struct type t is, or points to.
func structOf(t cc.Type) *cc.StructType {
	if p, ok := t.(*cc.PointerType); ok {
		t = p.Elem()
	}
	st, _ := t.(*cc.StructType)
	return st
}

// memberOff is the offset, in locations, of the member called name in st.
func memberOff(st *cc.StructType, name string) int64 {
	off := int64(0)
	for i := range st.NumFields() {
		fd := st.FieldByIndex(i)
		if fd.Name() == name {
			return off
		}
		off += locsOf(fd.Type())
	}
	return off
}

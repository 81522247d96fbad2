package lang

import (
	"fmt"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// array is a shared array: n elements from location base, each the
// locations of a struct (lay) or one location (lay nil: an array of
// scalars).
type array struct {
	base model.Loc
	n    int64
	lay  *shape
}

// stride is the number of locations of an element.
func (a *array) stride() int64 {
	if a.lay == nil {
		return 1
	}
	return a.lay.size
}

// elemName names element k of array s: s[k], or with Dims one index per
// dimension.
func elemName(s *Shared, k int64) string {
	if len(s.Dims) < 2 {
		return fmt.Sprintf("%s[%d]", s.Name, k)
	}
	idx := make([]string, len(s.Dims))
	for d := len(s.Dims) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprintf("[%d]", k%s.Dims[d])
		k /= s.Dims[d]
	}
	return s.Name + strings.Join(idx, "")
}

// shape is where a struct's fields lie in its locations: field i from
// offset at[i].off, at[i].n locations long (n is 0 for a scalar).
type shape struct {
	name   string
	fields []Field
	at     []fieldAt
	size   int64
}

// fieldAt is where a field lies in its struct: at offset off, an array of
// n elements (n 0: a scalar), each stride locations long.
type fieldAt struct{ off, n, stride int64 }

// placed is where p says a member lies.
func (p *Place) placed() fieldAt { return fieldAt{off: p.Off, n: p.Len, stride: max(p.Stride, 1)} }

// tail is the text of the member after its index, for messages.
func (p *Place) tail() string {
	if p == nil {
		return ""
	}
	return p.Tail
}

// shape lays out struct s, recording its fields' places for p->f.
func (c *compiler) shape(s *Shared) (*shape, error) {
	l := &shape{name: s.Name, fields: s.Fields}
	for _, f := range s.Fields {
		var n int64
		if f.Len != nil {
			v, err := c.constant(f.Len)
			if err != nil {
				return nil, err
			}
			if v < 1 || v > maxArray {
				return nil, errAt(f.Len.pos(), "field %s of %s: %d elements is out of range (1 to %d)", f.Name, s.Name, v, maxArray)
			}
			if int64(len(f.Elems)) > v {
				return nil, errAt(f.Elems[v].pos(), "field %s of %s has %d elements, not %d initial values", f.Name, s.Name, v, len(f.Elems))
			}
			n = v
		}
		at := fieldAt{off: l.size, n: n, stride: 1}
		l.at = append(l.at, at)
		l.size += max(n, 1)
		if l.size > maxArray {
			return nil, errAt(s.Pos, "struct %s takes more than %d locations", s.Name, maxArray)
		}
		c.fields[f.Name] = append(c.fields[f.Name], at)
	}
	return l, nil
}

// field finds a field of the struct.
func (l *shape) field(name string) (fieldAt, bool) {
	for i, f := range l.fields {
		if f.Name == name {
			return l.at[i], true
		}
	}
	return fieldAt{}, false
}

// names lists the struct's field names, for messages.
func (l *shape) names() []string {
	var ns []string
	for _, f := range l.fields {
		ns = append(ns, f.Name)
	}
	return ns
}

// cells calls f with the name of each of the struct's locations after
// prefix (prefix.f, prefix.keys[0], ...) and its initial value.
func (l *shape) cells(prefix string, f func(name string, init Expr)) {
	for _, fd := range l.fields {
		if fd.Len == nil {
			f(prefix+"."+fd.Name, fd.Init)
			continue
		}
		n, _ := l.field(fd.Name)
		for k := range n.n {
			e := fd.Init
			switch {
			case k < int64(len(fd.Elems)):
				e = fd.Elems[k]
			case fd.Elems != nil:
				e = &Num{}
			}
			f(fmt.Sprintf("%s.%s[%d]", prefix, fd.Name, k), e)
		}
	}
}

// maxArray bounds the elements of an array and the locations of a
// struct; maxLocs bounds a program's locations. Both are about memory:
// every state holds every location.
const (
	maxArray = 1 << 20
	maxLocs  = 1 << 22
)

// location resolves a shared variable, field, array element or mutex
// named statically (every index constant).
func (c *compiler) location(e Expr) (model.Loc, error) {
	switch e := e.(type) {
	case *Name:
		if l, ok := c.locs[e.Name]; ok {
			return l, nil
		}
		if s := c.structs[e.Name]; s != nil {
			return s.base, nil
		}
		if a := c.arrays[e.Name]; a != nil {
			return a.base, nil
		}
		return model.NoLoc, errAt(e.At, "unknown shared variable %s%s", e.Name, c.suggest(e.Name))
	case *FieldExpr:
		return c.staticMember(e, false)
	case *IndexExpr:
		return c.staticIndex(e, false)
	}
	return model.NoLoc, errAt(e.pos(), "expected a shared variable")
}

// staticIndex resolves a[i] with i constant; whole allows an element of
// an array of structs (its first location, as &a[i] takes).
func (c *compiler) staticIndex(e *IndexExpr, whole bool) (model.Loc, error) {
	a, err := c.array(e.Array, e.At)
	if err != nil {
		return model.NoLoc, err
	}
	if a.lay != nil && !whole {
		return model.NoLoc, c.structElem(e)
	}
	k, err := c.constant(e.Index)
	if err != nil {
		return model.NoLoc, err
	}
	return a.base + model.Loc(k*a.stride()), inRange(k, a.n, e.Index.pos(), "array "+e.Array)
}

// addrOf resolves what &e takes the address of, statically: as location
// does, but an element of an array of structs or an array field may be
// named whole (its first location).
func (c *compiler) addrOf(e Expr) (model.Loc, error) {
	switch e := e.(type) {
	case *IndexExpr:
		return c.staticIndex(e, true)
	case *FieldExpr:
		return c.staticMember(e, true)
	}
	return c.location(e)
}

// structElem is the error of naming a whole struct of an array.
func (c *compiler) structElem(e *IndexExpr) error {
	a := c.arrays[e.Array]
	return errAt(e.At, "the elements of %s are structs: name a field (%s[i].%s)", e.Array, e.Array, a.lay.fields[0].Name)
}

// inRange checks a constant index k of what has n elements.
func inRange(k, n int64, pos model.Pos, what string) error {
	if k < 0 || k >= n {
		return errAt(pos, "index %d is out of range: %s has %d elements", k, what, n)
	}
	return nil
}

// array returns the shared array called name.
func (c *compiler) array(name string, at model.Pos) (*array, error) {
	if a := c.arrays[name]; a != nil {
		return a, nil
	}
	return nil, errAt(at, "unknown shared array %s%s", name, c.suggest(name))
}

// member resolves the struct (or array of structs) and the field that
// s.f or a[i].f names.
func (c *compiler) member(e *FieldExpr) (*array, fieldAt, error) {
	var a *array
	if e.Index == nil {
		a = c.structs[e.Struct]
		if a == nil {
			if c.arrays[e.Struct] != nil {
				return nil, fieldAt{}, errAt(e.At, "%s is an array: name an element (%s[i].%s)", e.Struct, e.Struct, e.Field)
			}
			return nil, fieldAt{}, errAt(e.At, "unknown shared struct %s%s", e.Struct, c.suggest(e.Struct))
		}
	} else {
		var err error
		if a, err = c.array(e.Struct, e.At); err != nil {
			return nil, fieldAt{}, err
		}
		if a.lay == nil {
			return nil, fieldAt{}, errAt(e.At, "%s is an array of scalars: its elements have no field %s", e.Struct, e.Field)
		}
	}
	if e.Place != nil {
		return a, e.Place.placed(), nil
	}
	f, ok := a.lay.field(e.Field)
	if !ok {
		what := "struct " + e.Struct + " has"
		if e.Index != nil {
			what = "the elements of " + e.Struct + " have"
		}
		return nil, fieldAt{}, errAt(e.At, "%s no field %s%s", what, e.Field, model.DidYouMean(e.Field, a.lay.names()))
	}
	return a, f, nil
}

// staticMember resolves s.f, a[i].f, s.f[j] or a[i].f[j] with constant
// indices; whole allows an array field without an index (its first
// element, as &s.f takes).
func (c *compiler) staticMember(e *FieldExpr, whole bool) (model.Loc, error) {
	a, f, err := c.member(e)
	if err != nil {
		return model.NoLoc, err
	}
	var k, j int64
	if e.Index != nil {
		if k, err = c.constant(e.Index); err != nil {
			return model.NoLoc, err
		}
		if err := inRange(k, a.n, e.Index.pos(), "array "+e.Struct); err != nil {
			return model.NoLoc, err
		}
	}
	if err := subCheck(e, f, e.Sub, whole); err != nil {
		return model.NoLoc, err
	}
	if e.Sub != nil {
		if j, err = c.constant(e.Sub); err != nil {
			return model.NoLoc, err
		}
		if err := inRange(j, f.n, e.Sub.pos(), "field "+e.Field); err != nil {
			return model.NoLoc, err
		}
	}
	return a.base + model.Loc(k*a.stride()+f.off+j*f.stride), nil
}

// subCheck checks that x, a field f, has an index sub exactly when it is
// an array field (or names a whole one, when whole allows).
func subCheck(x Expr, f fieldAt, sub Expr, whole bool) error {
	switch {
	case f.n == 0 && sub != nil:
		return errAt(sub.pos(), "%s is not an array: fields hold scalars or arrays of scalars", formatExpr(withoutSub(x)))
	case f.n > 0 && sub == nil && !whole:
		return errAt(x.pos(), "%s is an array field: name an element (%s[i])", formatExpr(x), formatExpr(x))
	}
	return nil
}

// withoutSub is a field expression without its element index (and what
// follows it), for messages.
func withoutSub(x Expr) Expr {
	switch x := x.(type) {
	case *FieldExpr:
		y := *x
		y.Sub, y.Place = nil, x.Place.untailed()
		return &y
	case *ArrowExpr:
		y := *x
		y.Sub, y.Place = nil, x.Place.untailed()
		return &y
	}
	return x
}

// untailed is p without its tail.
func (p *Place) untailed() *Place {
	if p == nil {
		return nil
	}
	q := *p
	q.Tail = ""
	return &q
}

// suggest names the shared variable closest to name, when one is close
// enough to be a misspelling of it (model.DidYouMean): "; did you mean
// data?".
func (c *compiler) suggest(name string) string {
	var names []string
	for _, s := range c.pr.Shared {
		names = append(names, s.Name)
	}
	if m := model.DidYouMean(name, names); m != "" {
		return "; " + strings.Trim(m, " ()")
	}
	return ""
}

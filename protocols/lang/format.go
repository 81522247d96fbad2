package lang

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Format prints a protocol in the protocol language; parsing the result
// gives the same protocol (comments and layout aside).
func (pr *Protocol) Format() string {
	var b printer
	pr.format(&b)
	return b.String()
}

// FormatVariant prints the protocol as one of its variants makes it: each
// parameter's default is the variant's value, the variant's blocks stand in
// for the ones they replace, and no variant or expectation is left.
// Compiling the result gives the variant's program; "" names the default
// variant.
func (pr *Protocol) FormatVariant(name string) (string, error) {
	if _, err := pr.Compile(name, nil); err != nil {
		return "", err
	}
	v := pr.DefaultVariant()
	if name != "" {
		v = pr.Variant(name)
	}
	if v == nil {
		return pr.Format(), nil
	}
	if v.Whole != nil {
		return v.Whole.Format(), nil
	}
	flat := *pr
	flat.Variants, flat.Expects, flat.Params = nil, nil, nil
	for _, par := range pr.Params {
		c := *par
		for _, bd := range v.Binds {
			if bd.Param == par.Name {
				c.Default = bd.Value
			}
		}
		flat.Params = append(flat.Params, &c)
	}
	b := printer{replace: v.Replace}
	flat.format(&b)
	return b.String(), nil
}

// printer writes a protocol's text, with a variant's blocks in place of
// the ones they replace.
type printer struct {
	strings.Builder
	replace map[string]*Block
}

func (pr *Protocol) format(b *printer) {
	fmt.Fprintf(b, "protocol %s %s\n\n", pr.Name, strconv.Quote(pr.Title))
	for _, p := range pr.Params {
		fmt.Fprintf(b, "param %s = %s", p.Name, p.Default.Text)
		if len(p.Choices) > 0 {
			fmt.Fprintf(b, " in %s", strings.Join(p.Choices, ", "))
		}
		fmt.Fprintf(b, " %s\n", strconv.Quote(p.Doc))
	}
	for _, v := range pr.Variants {
		fmt.Fprintf(b, "variant %s", v.Name)
		for _, bd := range v.Binds {
			fmt.Fprintf(b, " %s", bd)
		}
		fmt.Fprintf(b, " %s", strconv.Quote(v.Doc))
		if v.Default {
			b.WriteString(" default")
		}
		if v.Shipped {
			b.WriteString(" shipped")
		}
		if len(v.Replace) > 0 {
			b.WriteString(" {\n")
			var names []string
			for n := range v.Replace {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(b, "  replace %s ", n)
				b.block(v.Replace[n], 1)
				b.WriteString("\n")
			}
			b.WriteString("}")
		}
		b.WriteString("\n")
	}
	for _, s := range pr.Types {
		var fs []string
		for _, f := range s.Fields {
			fs = append(fs, formatField(f, false))
		}
		fmt.Fprintf(b, "struct %s { %s }\n", s.Name, strings.Join(fs, ", "))
	}
	for _, s := range pr.Shared {
		fmt.Fprintf(b, "shared %s", s.Name)
		if s.Len != nil {
			fmt.Fprintf(b, "[%s]", formatExpr(s.Len))
		}
		switch {
		case s.Fields != nil:
			var fs []string
			for _, f := range s.Fields {
				fs = append(fs, formatField(f, true))
			}
			fmt.Fprintf(b, " { %s }", strings.Join(fs, ", "))
		case s.Len != nil:
			if s.Elems != nil {
				fmt.Fprintf(b, " = {%s}", strings.Join(formatExprs(s.Elems), ", "))
			}
		default:
			fmt.Fprintf(b, " = %s", formatExpr(s.Init))
		}
		b.WriteString("\n")
	}
	for _, m := range pr.Mutexes {
		fmt.Fprintf(b, "mutex %s\n", m.Name)
	}
	for _, p := range pr.Props {
		fmt.Fprintf(b, "property %s %s\n", p.Name, strconv.Quote(p.Doc))
	}
	var procs []string
	for n := range pr.Procs {
		procs = append(procs, n)
	}
	sort.Strings(procs)
	for _, n := range procs {
		p := pr.Procs[n]
		kind := "proc"
		if p.Op {
			kind = "op"
		}
		fmt.Fprintf(b, "\n%s %s(%s) ", kind, p.Name, strings.Join(p.Params, ", "))
		b.block(p.Body, 0)
		b.WriteString("\n")
	}
	for _, t := range pr.Threads {
		fmt.Fprintf(b, "\nthread %s", t.Name)
		if t.Count != nil {
			fmt.Fprintf(b, "[%s]", formatExpr(t.Count))
		}
		if t.Spawned {
			b.WriteString(" spawned")
		}
		b.WriteString(" ")
		b.block(t.Body, 0)
		b.WriteString("\n")
	}
	for _, f := range pr.Finals {
		fmt.Fprintf(b, "\nfinal %s: %s", f.Prop, formatExpr(f.Cond))
		if f.Msg != "" {
			fmt.Fprintf(b, ", %s", strconv.Quote(f.Msg))
		}
		b.WriteString("\n")
	}
	if s := pr.Spec; s != nil {
		b.WriteString("\nspec {\n")
		for _, v := range s.State {
			var elems []string
			for _, e := range v.Elems {
				elems = append(elems, strconv.FormatInt(e, 10))
			}
			switch v.Kind {
			case SpecInt:
				fmt.Fprintf(b, "  state %s = %d\n", v.Name, v.Init)
			case SpecSeq:
				fmt.Fprintf(b, "  state %s = [%s]\n", v.Name, strings.Join(elems, ", "))
			default:
				fmt.Fprintf(b, "  state %s = {%s}\n", v.Name, strings.Join(elems, ", "))
			}
		}
		for _, op := range s.Ops {
			fmt.Fprintf(b, "  op %s", op.Name)
			if len(op.Params) > 0 {
				fmt.Fprintf(b, "(%s)", strings.Join(op.Params, ", "))
			}
			b.WriteString(" ")
			if len(op.Results) > 0 || op.Open {
				var rs []string
				for _, r := range op.Results {
					rs = append(rs, strings.TrimSpace(strconv.FormatInt(r.Val, 10)+" "+quoteNonEmpty(r.Label)))
				}
				if op.Open {
					rs = append(rs, "any")
				}
				fmt.Fprintf(b, "returns %s ", strings.Join(rs, ", "))
			}
			b.block(op.Body, 1)
			b.WriteString("\n")
		}
		b.WriteString("}\n")
	}
	if len(pr.Expects) > 0 {
		b.WriteString("\n")
	}
	for _, e := range pr.Expects {
		b.WriteString(e.String() + "\n")
	}
}

func (b *printer) block(blk *Block, depth int) {
	b.WriteString("{\n")
	for _, s := range blk.Stmts {
		b.WriteString(strings.Repeat("  ", depth+1))
		b.stmt(s, depth+1)
		b.WriteString("\n")
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
}

func (b *printer) stmt(s Stmt, depth int) {
	switch s := s.(type) {
	case *AssignStmt:
		fmt.Fprintf(b, "%s = %s", formatExpr(s.LHS), formatExpr(s.RHS))
	case *IfStmt:
		fmt.Fprintf(b, "if %s ", formatExpr(s.Cond))
		b.block(s.Then, depth)
		if s.Else != nil {
			b.WriteString(" else ")
			b.block(s.Else, depth)
		}
	case *WhileStmt:
		fmt.Fprintf(b, "while %s max %s ", formatExpr(s.Cond), formatExpr(s.Max))
		b.block(s.Body, depth)
	case *ForStmt:
		fmt.Fprintf(b, "for %s in %s .. %s ", s.Var, formatExpr(s.From), formatExpr(s.To))
		b.block(s.Body, depth)
	case *NamedBlock:
		fmt.Fprintf(b, "block %s ", s.Name)
		body := s.Body
		if r, ok := b.replace[s.Name]; ok {
			body = r
		}
		b.block(body, depth)
	case *OpStmt:
		fmt.Fprintf(b, "op %s ", s.Name)
		b.block(s.Body, depth)
	case *EitherStmt:
		b.WriteString("either ")
		for i, arm := range s.Arms {
			if i > 0 {
				b.WriteString(" or ")
			}
			b.block(arm, depth)
		}
	case *AssertStmt:
		fmt.Fprintf(b, "assert %s: %s", s.Prop, formatExpr(s.Cond))
		if s.Msg != "" {
			fmt.Fprintf(b, ", %s", strconv.Quote(s.Msg))
		}
	case *AssumeStmt:
		kind := "assume"
		if s.Await {
			kind = "await"
		}
		fmt.Fprintf(b, "%s %s", kind, formatExpr(s.Cond))
	case *MemStmt:
		args := formatExprs(s.Args)
		if s.Ord != nil {
			args = append(args, s.Ord.Text)
		}
		fmt.Fprintf(b, "%s(%s)", s.Kind, strings.Join(args, ", "))
	case *HazardStmt:
		ptr := "0"
		if s.Ptr != nil {
			ptr = formatExpr(s.Ptr)
		}
		fmt.Fprintf(b, "hazard(%s, %s)", formatExpr(s.Handle), ptr)
	case *SpawnStmt:
		fmt.Fprintf(b, "spawn %s", s.Thread)
	case *ReturnStmt:
		b.WriteString("return")
		if len(s.Vals) > 0 {
			b.WriteString(" " + strings.Join(formatExprs(s.Vals), ", "))
		}
	case *BranchStmt:
		b.WriteString(s.Tok)
	case *ExprStmt:
		b.WriteString(formatExpr(s.X))
	case *RequireStmt:
		b.WriteString("require " + formatExpr(s.Cond))
	}
}

// quoteNonEmpty quotes s, or gives "" for an empty s.
func quoteNonEmpty(s string) string {
	if s == "" {
		return ""
	}
	return strconv.Quote(s)
}

// formatSub is the index of an array field's element, if any: "[j]".
func formatSub(sub Expr) string {
	if sub == nil {
		return ""
	}
	return "[" + formatExpr(sub) + "]"
}

// formatField is a struct's field as declared: "next", "keys[4]", with
// its initial value(s) when init.
func formatField(f Field, init bool) string {
	s := f.Name
	if f.Len != nil {
		s += "[" + formatExpr(f.Len) + "]"
	}
	switch {
	case !init:
	case f.Elems != nil:
		s += " = {" + strings.Join(formatExprs(f.Elems), ", ") + "}"
	default:
		s += " = " + formatExpr(f.Init)
	}
	return s
}

func formatExpr(e Expr) string {
	switch e := e.(type) {
	case *Num:
		return strconv.FormatInt(e.Val, 10)
	case *Name:
		return e.Name
	case *FieldExpr:
		s := e.Struct + "." + e.Field
		if e.Index != nil {
			s = e.Struct + "[" + formatExpr(e.Index) + "]." + e.Field
		}
		return s + formatSub(e.Sub) + e.Place.tail()
	case *IndexExpr:
		return e.Array + "[" + formatExpr(e.Index) + "]"
	case *CondExpr:
		return "(" + formatExpr(e.Cond) + " ? " + formatExpr(e.Then) + " : " + formatExpr(e.Else) + ")"
	case *ArrowExpr:
		head := formatExpr(e.Ptr) + "->" + e.Field
		if a, ok := e.Ptr.(*AddrExpr); ok && e.Place != nil {
			// A front end's member of a member: s.in.a, not &s.in->a.
			head = formatExpr(a.Of)
			if e.Field != "" {
				head += "." + e.Field
			}
		}
		return head + formatSub(e.Sub) + e.Place.tail()
	case *DerefExpr:
		return "*" + formatExpr(e.Ptr)
	case *AddrExpr:
		return "&" + formatExpr(e.Of)
	case *BinExpr:
		return "(" + formatExpr(e.X) + " " + e.Op + " " + formatExpr(e.Y) + ")"
	case *UnExpr:
		return e.Op + formatExpr(e.X)
	case *CallExpr:
		args := formatExprs(e.Args)
		for _, o := range e.Ords {
			args = append(args, o.Text)
		}
		return e.Func + "(" + strings.Join(args, ", ") + ")"
	}
	return "?"
}

func formatExprs(es []Expr) []string {
	var parts []string
	for _, e := range es {
		parts = append(parts, formatExpr(e))
	}
	return parts
}

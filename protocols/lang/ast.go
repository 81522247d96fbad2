// Package lang reads ordercheck's protocol language: protocols written as
// threads over shared memory, with named parameters, variants (the fixes
// under review), properties, and compiles them to programs for the checker.
package lang

import "github.com/ordercheck/ordercheck/model"

// Protocol is a parsed protocol file.
type Protocol struct {
	Name, Title string
	File        string
	Params      []*Param
	Variants    []*Variant
	Shared      []*Shared
	Types       []*Shared // heap structs: the blocks alloc(T) makes
	Mutexes     []*Shared
	Props       []*Prop
	Procs       map[string]*Proc
	Threads     []*ThreadDecl
	Finals      []*Final
	Expects     []*Expect
	Spec        *Spec // nil: none in the file
	// Lowered marks a protocol a front end built from another language
	// (C): its registers are that language's locals, so one assigned and
	// never read is no misspelt shared variable.
	Lowered bool
	// Aborts says a failed assert or memory error ends the program, as
	// in C (model.Instr.Abort).
	Aborts bool
	// Hazards is the number of hazard pointers a thread may hold
	// (HazardStmt): handles run from 1 to Hazards.
	Hazards int
}

// Param is a named parameter with its default value.
type Param struct {
	Name    string
	Default Value
	Choices []string // for a symbolic parameter, its possible values
	Doc     string
	Pos     model.Pos
}

// Value is a parameter's value: an integer, an ordering or a symbol.
type Value struct {
	Text string
	Pos  model.Pos
	// Fixed marks an ordering a front end sets for a mechanism of its own
	// (a C thread's join flag), which the program does not choose: tune
	// leaves it (model.Instr.Fixed).
	Fixed bool
}

// Variant is a named version of the protocol: parameter bindings and
// replacements of named blocks. A variant may extend an earlier one, taking
// its bindings and replacements before its own.
type Variant struct {
	Name    string
	Binds   []Bind
	Replace map[string]*Block
	Doc     string
	Default bool
	// Shipped marks the variant that is the code as it ships today, for
	// reviews to single out; at most one variant has it.
	Shipped bool
	Pos     model.Pos
	// Whole, when set, is the variant's whole program, built apart by a
	// front end whose variants differ in more than blocks (C's
	// preprocessor): its parameters, memory, threads and properties; Binds
	// and Replace are then empty.
	Whole *Protocol
}

// Bind sets a parameter in a variant.
type Bind struct {
	Param string
	Value Value
}

// String writes the binding as a command line does: "N=3".
func (b Bind) String() string { return b.Param + "=" + b.Value.Text }

// BindTexts writes each binding as "N=3".
func BindTexts(bs []Bind) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.String()
	}
	return out
}

// Shared is a shared variable: a scalar, a struct with fields, an array
// of either (Len set), or a mutex.
type Shared struct {
	Name   string
	Fields []Field // nil for a scalar or an array of scalars
	Init   Expr    // scalar initial value
	Len    Expr    // an array's number of elements; nil for a scalar or struct
	Elems  []Expr  // an array of scalars' initial values ({a, b}); the rest are 0
	// Dims, set by a front end for an array of arrays laid out flat, are
	// its lengths, outermost first (their product is Len): an element is
	// named by one index per dimension, g[1][2], not g[5].
	Dims []int64
	Pos  model.Pos
}

// Field is a field of a struct: a scalar, or an array of Len scalars
// ("keys[4]"), each starting at Init (or at Elems, "= {a, b}", the rest
// 0).
type Field struct {
	Name  string
	Init  Expr
	Len   Expr
	Elems []Expr
}

// PropMemory is the property that the checks of heap accesses assert: a
// protocol that allocates or frees has it. PropLeak, declared, asks that
// every block allocated is freed by the end of an execution.
const (
	PropMemory = "memory-safety"
	PropLeak   = "memory-leak"
)

// PropBounds is the property that the checks of array indices assert: a
// protocol that indexes an array by anything but a constant has it.
const PropBounds = "bounds"

// Prop declares a property that the checker reports on.
type Prop struct {
	Name string
	Doc  string
	Pos  model.Pos
}

// Proc is a procedure, expanded at each call. An operation (Op) is a
// procedure of the protocol's interface: each call of it is one operation
// of the execution's history, with its arguments and results.
type Proc struct {
	Name   string
	Params []string
	Body   *Block
	Op     bool
	Pos    model.Pos
}

// ThreadDecl declares a thread, or Count instances of it.
type ThreadDecl struct {
	Name    string
	Count   Expr // nil for a single thread
	Spawned bool
	Body    *Block
	Pos     model.Pos
}

// Final is a named condition on every final state.
type Final struct {
	Prop string
	Cond Expr
	Msg  string
	Pos  model.Pos
}

// Expect is an expect clause: the verdict of every cell (parameter
// overrides, variant, model) it selects.
type Expect struct {
	Variants []string    // nil: every variant ("*")
	Params   []Bind      // the "with" overrides; none: the default parameters
	Models   []string    // nil: every model
	Violated []Violation // the properties violated; none: every property holds
	Pos      model.Pos

	variantAt, modelAt, propAt []model.Pos // where each name is written
}

// Violation is a property an expect clause says is violated.
type Violation struct {
	Prop  string
	Every bool // violated by every execution of the cell
}

// Block is a sequence of statements.
type Block struct {
	Stmts []Stmt
	Pos   model.Pos
}

// Stmt is a statement.
type Stmt interface{ pos() model.Pos }

// Expr is an expression.
type Expr interface{ pos() model.Pos }

type (
	// AssignStmt is "lhs = rhs".
	AssignStmt struct {
		LHS Expr // a name, field, arrow or deref
		RHS Expr
		At  model.Pos
	}
	// IfStmt is "if cond { } else { }".
	IfStmt struct {
		Cond       Expr
		Then, Else *Block
		At         model.Pos
	}
	// WhileStmt is "while cond max N { }".
	WhileStmt struct {
		Cond Expr
		Max  Expr
		Body *Block
		// Spin asks for GenMC's spin-assume of a loop that may leave by
		// break or return: when the loop carries no register from round
		// to round (Carried), a round that comes back to the top having
		// written nothing another thread can see — failed
		// compare-exchanges, stores into a block the thread allocated and
		// has not let escape — is pruned, a wait whose evaluation is the
		// round (a deadlock when the final memory would repeat it
		// forever). The protocol language has no syntax for it: the C
		// front end sets it.
		Spin bool
		// Stop makes Max GenMC's -unroll bound: the thread stops, as if
		// it ended, when it reaches the loop's top a Max+1-th time (its
		// __VERIFIER_kill_thread), rather than cut the execution. It
		// leaves executions out without saying so: only for comparing
		// counts with GenMC. The protocol language has no syntax for it.
		Stop bool
		At   model.Pos
	}
	// ForStmt is "for i in a..b { }".
	ForStmt struct {
		Var      string
		From, To Expr
		Body     *Block
		At       model.Pos
	}
	// NamedBlock is "block name { }", which a variant may replace.
	NamedBlock struct {
		Name string
		Body *Block
		At   model.Pos
	}
	// OpStmt is "op name { }": one operation of the protocol's interface.
	OpStmt struct {
		Name string
		Body *Block
		At   model.Pos
	}
	// EitherStmt is "either { } or { } ...": a nondeterministic choice.
	EitherStmt struct {
		Arms []*Block
		At   model.Pos
	}
	// AssertStmt is "assert prop: cond, "message"".
	AssertStmt struct {
		Prop string
		Cond Expr
		Msg  string
		At   model.Pos
	}
	// AssumeStmt is "assume cond", which prunes the executions where cond
	// is false, or "await cond", a wait for cond.
	AssumeStmt struct {
		Cond  Expr
		Await bool
		// Pre, for an await, runs again before each evaluation of the
		// condition (a C spin loop's body); it may read memory and
		// assign registers only. The protocol language has no syntax
		// for it: the C front end sets it.
		Pre *Block
		At  model.Pos
	}
	// MemStmt is lock(m), unlock(m), fence(o), store(x, v, o), free(p),
	// or retire(p), which a front end makes of GenMC's
	// __VERIFIER_hp_retire: a free deferred while a hazard pointer
	// protects the block (HazardStmt).
	MemStmt struct {
		Kind string
		Args []Expr
		Ord  *Value
		At   model.Pos
	}
	// HazardStmt sets the running thread's hazard pointer Handle (1 to
	// Protocol.Hazards) to Ptr, or clears it when Ptr is nil: GenMC's
	// __VERIFIER_hp_protect, _clear and _free. While one of its hazard
	// pointers points into a heap block, a thread's accesses to that
	// block are never a use after retire. The protocol language has no
	// syntax for it: the C front end makes it.
	HazardStmt struct {
		Handle Expr
		Ptr    Expr
		At     model.Pos
	}
	// SpawnStmt is "spawn thread".
	SpawnStmt struct {
		Thread string
		At     model.Pos
	}
	// ReturnStmt is "return [value, ...]": an operation may return
	// several values, a procedure one.
	ReturnStmt struct {
		Vals []Expr
		At   model.Pos
	}
	// BranchStmt is "break" or "continue" (Tok) in the innermost loop.
	BranchStmt struct {
		Tok string
		At  model.Pos
	}
	// ExprStmt is a call evaluated for its effect.
	ExprStmt struct {
		X  Expr
		At model.Pos
	}
)

// ThreadIndex is a name a front end may read in a thread's code (protocol
// source cannot write it): the running thread's number in the program,
// counting its threads' instances in order from 0. C's thread-local
// variables are arrays it indexes.
const ThreadIndex = "%thread"

// Place is where a member lies in a struct, for a front end that knows
// the struct's type (C's s.in.a, p->nodes[i].next): Off locations from the
// struct's start, and for an indexed member an array of Len elements of
// Stride locations each (Len 0: not indexed). Field then names the member
// up to the index and Tail what follows it inside an element (".next"),
// for messages. Without a Place, a field is found by name in the
// protocol's structs.
type Place struct {
	Off, Len, Stride int64
	Tail             string
}

type (
	// Num is an integer literal.
	Num struct {
		Val int64
		At  model.Pos
	}
	// Name is a register, shared variable, parameter, symbol or "self".
	Name struct {
		Name string
		At   model.Pos
	}
	// FieldExpr is "s.f" (a shared struct's field), or "a[i].f" (a field
	// of an element of an array of structs; Index is nil for "s.f"), and
	// with Sub set an element of an array field: "s.f[j]", "a[i].f[j]".
	// In a final condition, "t.r" and "t[i].r" name a thread's register.
	FieldExpr struct {
		Struct, Field string
		Index, Sub    Expr
		Place         *Place // nil: the field is found by name
		At            model.Pos
	}
	// IndexExpr is "a[i]": an element of a shared array.
	IndexExpr struct {
		Array string
		Index Expr
		At    model.Pos
	}
	// ArrowExpr is "p->f", or with Sub set "p->f[j]", an element of an
	// array field.
	ArrowExpr struct {
		Ptr   Expr
		Field string
		Sub   Expr
		Place *Place // nil: the field is found by name
		At    model.Pos
	}
	// DerefExpr is "*p".
	DerefExpr struct {
		Ptr Expr
		At  model.Pos
	}
	// AddrExpr is "&x" or "&s.f".
	AddrExpr struct {
		Of Expr
		At model.Pos
	}
	// BinExpr is "x op y".
	BinExpr struct {
		Op   string
		X, Y Expr
		At   model.Pos
	}
	// UnExpr is "!x" or "-x".
	UnExpr struct {
		Op string
		X  Expr
		At model.Pos
	}
	// CondExpr is "c ? x : y".
	CondExpr struct {
		Cond, Then, Else Expr
		At               model.Pos
	}
	// CallExpr is load, an RMW, cas, choose, or a procedure call.
	CallExpr struct {
		Func string
		Args []Expr
		Ords []Value
		// Old, for a cas, is a register the value it read is assigned to
		// (a C compare_exchange writes it back to its expected value).
		Old string
		At  model.Pos
	}
)

func (s *AssignStmt) pos() model.Pos { return s.At }
func (s *IfStmt) pos() model.Pos     { return s.At }
func (s *WhileStmt) pos() model.Pos  { return s.At }
func (s *ForStmt) pos() model.Pos    { return s.At }
func (s *NamedBlock) pos() model.Pos { return s.At }
func (s *OpStmt) pos() model.Pos     { return s.At }
func (s *EitherStmt) pos() model.Pos { return s.At }
func (s *AssertStmt) pos() model.Pos { return s.At }
func (s *AssumeStmt) pos() model.Pos { return s.At }
func (s *MemStmt) pos() model.Pos    { return s.At }
func (s *HazardStmt) pos() model.Pos { return s.At }
func (s *SpawnStmt) pos() model.Pos  { return s.At }
func (s *ReturnStmt) pos() model.Pos { return s.At }
func (s *BranchStmt) pos() model.Pos { return s.At }
func (s *ExprStmt) pos() model.Pos   { return s.At }
func (e *Num) pos() model.Pos        { return e.At }
func (e *Name) pos() model.Pos       { return e.At }
func (e *FieldExpr) pos() model.Pos  { return e.At }
func (e *ArrowExpr) pos() model.Pos  { return e.At }
func (e *DerefExpr) pos() model.Pos  { return e.At }
func (e *AddrExpr) pos() model.Pos   { return e.At }
func (e *BinExpr) pos() model.Pos    { return e.At }
func (e *UnExpr) pos() model.Pos     { return e.At }
func (e *IndexExpr) pos() model.Pos  { return e.At }
func (e *CondExpr) pos() model.Pos   { return e.At }
func (e *CallExpr) pos() model.Pos   { return e.At }

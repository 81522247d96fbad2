package c

import (
	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// main's known values. main starts the threads, and how many it starts
// and which handle and argument each gets must be known when the program
// is lowered. So main's straight-line code — outside the loops it does
// not lay out round by round and outside the arms of an if it cannot
// decide — keeps the value of each variable it assigned a constant: its
// locals, and the globals no other function writes and no code takes the
// address of (main reads back what it wrote last, whatever the memory
// model: no other thread writes them). A read of such a variable is its
// value; the store is lowered as ever. A loop or an if arm that assigns a
// variable makes its value unknown before it is lowered.

// known is the value of a variable main knows now.
func (f *fn) known(dd *cc.Declarator) (int64, bool) {
	v, ok := f.values[dd]
	return v, ok
}

// learn records that dd now holds the value of v, or forgets dd when v is
// not a constant or the statement is not on main's straight line.
func (f *fn) learn(dd *cc.Declarator, v lang.Expr) {
	if dd == nil || !f.main {
		return
	}
	n, ok := fold(v)
	if ok && f.loops == 0 && f.arms == 0 && f.trackable(dd) {
		f.values[dd] = n
		return
	}
	delete(f.values, dd)
}

// trackable reports whether main may know dd's value: a local of main
// held in a register, or a scalar global only main writes.
func (f *fn) trackable(dd *cc.Declarator) bool {
	if g, ok := f.l.globals[dd]; ok {
		return f.l.mainOnly[dd] && g.scalar()
	}
	_, ok := f.locals[dd.Name()]
	return ok && !dd.AddressTaken() // a compare-exchange's expected value is written through &
}

// forget drops the values of the variables n assigns: a loop or an if arm
// main is about to lower.
func (f *fn) forget(n cc.Node) {
	if len(f.values) > 0 {
		writes(n, func(dd *cc.Declarator, _ bool) { delete(f.values, dd) })
	}
}

// findMainOnly finds the scalar globals that only main writes and no code
// takes the address of, and starts main knowing their initial values.
func (l *lowerer) findMainOnly(main *fn) {
	l.mainOnly = map[*cc.Declarator]bool{}
	for dd, g := range l.globals {
		if g.scalar() {
			l.mainOnly[dd] = true
		}
	}
	for name, fd := range l.funcs {
		writes(fd.CompoundStatement, func(dd *cc.Declarator, addr bool) {
			if addr || name != "main" {
				delete(l.mainOnly, dd)
			}
		})
	}
	for dd := range l.mainOnly {
		if n, ok := l.globals[dd].sh.Init.(*lang.Num); ok {
			main.values[dd] = n.Val
		}
	}
}

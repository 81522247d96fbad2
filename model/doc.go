// Package model is what ordercheck checks programs against: the program
// IR and its interpreter, execution graphs, the relation algebra memory
// models are written in, and the memory models themselves. It imports
// nothing else of ordercheck.
//
// A Program is a set of threads, each a state machine over registers
// (Instr, Thread); Program.Replay and Program.Advance run a thread over
// the events it has produced so far and return its next visible Action.
// An execution is a Graph: the events of each thread in program order,
// the write each read reads from, and the modification order of each
// location. Exec indexes a graph's memory events and derives the base
// relations (po, rf, co, fr, rmw, loc, ext) as bit matrices; Let defines
// further relations, computed at most once per execution by Exec.Of.
//
// A memory model is one Model value in one file, registered with
// Register: its axioms as a table of named relations and constraints, as
// a herd7 .cat file states them (Model.Check returns the first axiom an
// execution violates); the happens-before data races are judged by; its
// place in the strength order (Within, Strength); how it explains a stale
// read or a missed synchronisation in a counterexample; and, when it has
// one, its operational form, a Machine whose Memory the state explorer
// steps through (a Buffered one when the machine moves on a thread's
// behalf, as TSO's store buffers do). The models are values: SC (sc.go),
// TSO (tso.go, x86-TSO through the C11-to-x86 mapping), RC11 (rc11.go),
// RC11Consume (consume.go), ARM (arm.go, ARMv8 through the C11 mapping)
// and RISCV (riscv.go, RVWMO); the registry (Lookup, All, Names) finds
// them, and a model of one's own, by the names a command line gives.
// Code outside this package asks a model's fields, never its name.
package model

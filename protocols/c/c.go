// Package c reads concurrent C programs — threads from pthread_create,
// <stdatomic.h> atomics, mutexes, assert — and lowers them to the
// protocol language's syntax tree, which lang compiles to programs for
// the checker like any protocol file. C is preprocessed, parsed and type
// checked by modernc.org/cc/v4 from headers embedded in the binary: no C
// compiler is needed. What lies outside the subset (docs/c.md) is a
// located error naming the construct.
package c

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

//go:embed include
var headers embed.FS

// includeRoot is where the embedded headers appear to the preprocessor.
const includeRoot = "/ordercheck/include"

// Options are the choices a command line makes for a C file.
type Options struct {
	// Defines are -D arguments: "NAME" or "NAME=VALUE".
	Defines []string
	// Includes are -I directories, searched for #include "file" after
	// the file's own directory and for #include <file>, before the
	// headers ordercheck ships.
	Includes []string `json:",omitempty"`
	// Unroll bounds the rounds of every loop that is neither a counted
	// for loop nor a spin loop; a loop cut there gives no verdict.
	Unroll int
	// StopAtUnroll makes Unroll GenMC's -unroll: a thread that reaches
	// such a loop's top an Unroll+1-th time stops there, as if it ended
	// (GenMC's __VERIFIER_kill_thread), and the execution counts as
	// complete. It leaves executions out without a word: only for
	// comparing counts with GenMC's, never for a verdict.
	StopAtUnroll bool `json:",omitempty"`
}

// DefaultUnroll is the loop bound when Options.Unroll is 0.
const DefaultUnroll = 4

// ExpansionLimit bounds the preprocessor's work on one file, against
// macros that expand exponentially.
const ExpansionLimit = 1_000_000

// ParseFile reads and lowers the C file at path.
func ParseFile(path string, opt Options) (*lang.Protocol, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, opt)
}

// Parse preprocesses, parses and type-checks C source (file names it in
// messages and locates its relative includes), and lowers it to a
// protocol with the properties assertion, data-race and deadlock (and
// memory-safety, locking where the code needs them), the expect clauses
// of its "// ordercheck: expect" comments, and a variant for each
// "// ordercheck: variant NAME [default] [shipped] -DNAME=VALUE..." comment: the
// file preprocessed again with those macros (the first is the default
// unless one says default). Errors are *lang.Error values naming
// file:line:col.
func Parse(file string, src []byte, opt Options) (*lang.Protocol, error) {
	cm, err := readComments(file, src)
	if err != nil {
		return nil, err
	}
	if len(cm.variants) == 0 {
		pr, err := program(file, src, opt, cm.props)
		if err != nil {
			return nil, err
		}
		if err := cm.addExpects(pr); err != nil {
			return nil, err
		}
		return pr, lang.Build(pr)
	}
	vs := make([]*lang.Variant, len(cm.variants))
	def := 0
	for i, v := range cm.variants {
		o := opt
		o.Defines = append(slices.Clone(opt.Defines), v.defines...)
		pr, err := program(file, src, o, cm.props)
		if err == nil {
			err = lang.Build(pr)
		}
		if le := (*lang.Error)(nil); errors.As(err, &le) {
			return nil, &lang.Error{Pos: le.Pos, Msg: le.Msg + " (in variant " + v.name + ")", Err: le.Err}
		} else if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.name, err)
		}
		vs[i] = &lang.Variant{Name: v.name, Pos: v.at, Whole: pr, Shipped: v.shipped}
		if v.def {
			def = i
		}
	}
	vs[def].Default = true
	// The file as a whole: the default variant's program, every variant's
	// properties, the expect clauses over them.
	pr := *vs[def].Whole
	pr.Variants, pr.Expects, pr.Props = vs, nil, nil
	seen := map[string]bool{}
	for _, v := range vs {
		for _, p := range v.Whole.Props {
			if !seen[p.Name] {
				seen[p.Name] = true
				pr.Props = append(pr.Props, p)
			}
		}
	}
	if err := cm.addExpects(&pr); err != nil {
		return nil, err
	}
	return &pr, lang.Build(&pr)
}

// program preprocesses, parses, type-checks and lowers the file with
// opt's macros and its own properties: one program, its expectations not
// yet read.
func program(file string, src []byte, opt Options, props []*lang.Prop) (*lang.Protocol, error) {
	if opt.Unroll <= 0 {
		opt.Unroll = DefaultUnroll
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	if err := checkNesting(file, src); err != nil {
		return nil, err
	}
	abi, err := cc.NewABI("linux", "amd64")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, d := range opt.Includes {
		a, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, a)
	}
	cfg := &cc.Config{
		ABI:             abi,
		FS:              overlay{},
		FSOnly:          true,
		IncludePaths:    append(append([]string{"@", filepath.Dir(abs)}, dirs...), includeRoot),
		SysIncludePaths: append(dirs, includeRoot),
		ExpansionLimit:  ExpansionLimit,
		DefaultSizeT:    cc.ULong,
	}
	predef, err := headers.ReadFile("include/predefined.h")
	if err != nil {
		return nil, err
	}
	var defs strings.Builder
	for _, d := range opt.Defines {
		name, val, ok := strings.Cut(d, "=")
		if !ok {
			val = "1"
		}
		if !identRE.MatchString(name) {
			return nil, fmt.Errorf("-D %s: %q is not a macro name", d, name)
		}
		fmt.Fprintf(&defs, "#define %s %s\n", name, val)
	}
	ast, err := translate(cfg, file, abs, string(predef)+defs.String(), src)
	if err != nil {
		return nil, err
	}
	return lower(file, abs, src, ast, opt, props)
}

// translate runs cc on the file after the predefined text: the
// preprocessor alone first, then the parser on what it gives.
func translate(cfg *cc.Config, file, abs, predef string, src []byte) (ast *cc.AST, err error) {
	defer func() {
		// The preprocessor panics on some hostile input (a file that
		// includes itself): that is the input's error.
		if r := recover(); r != nil {
			ast, err = nil, &lang.Error{Pos: model.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("the C front end could not read this file (%v)", r)}
		}
	}()
	// Two line ends after the file: cc's scanner loops for ever on a
	// character or string literal whose backslash meets the end of the
	// file ('\ at the end, or before a last line end, which it splices).
	padded := append(src[:len(src):len(src)], "\n\n"...)
	sources := []cc.Source{{Name: "<predefined>", Value: predef}, {Name: abs, Value: padded}, {Name: "<end>", Value: endSentinel}}
	if err := cc.Preprocess(cfg, sources, io.Discard); err != nil {
		return nil, ccError(file, abs, src, err)
	}
	ast, err = cc.Translate(cfg, sources)
	if err != nil {
		return nil, ccError(file, abs, src, err)
	}
	return ast, nil
}

// endSentinel follows every file, as a source of its own (a comment or
// conditional the file leaves open does not swallow it). cc's parser
// loops for ever, and grows its error list without bound, when its
// input ends inside a pointer declarator ("void *" at the end of a
// file): it skips tokens until one that may follow a pointer's type
// qualifiers, and the end of the input is not one. "static" is: this
// declaration ends the loop in a broken file, and adds nothing lowered
// to a good one (a function declared, never defined or called). The
// parser's input ends early too when the preprocessor fails (a bad
// #include): translate does not parse such a file.
const endSentinel = "static void __ordercheck_end_of_file(void);\n"

// includeRE matches an #include line; its group is the argument.
var includeRE = regexp.MustCompile(`^\s*#\s*include\s*(.*)$`)

// includesMacro reports whether line includes what a macro names.
func includesMacro(line string) bool {
	m := includeRE.FindStringSubmatch(line)
	return m != nil && m[1] != "" && m[1][0] != '"' && m[1][0] != '<'
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// overlay serves the embedded headers under includeRoot and the user's
// files from the host: cc asks for absolute paths, which embed.FS
// refuses.
type overlay struct{}

func (overlay) Open(name string) (fs.File, error) {
	if rest, ok := strings.CutPrefix(name, includeRoot+"/"); ok {
		return headers.Open("include/" + rest)
	}
	if !filepath.IsAbs(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return os.Open(name)
}

// checkNesting refuses brackets nested deeper than lang.MaxNesting
// before cc parses them: its recursive parser would exhaust the stack.
func checkNesting(file string, src []byte) error {
	depth, line, col := 0, 1, 1
	for _, b := range src {
		switch b {
		case '(', '[', '{':
			if depth++; depth > lang.MaxNesting {
				return &lang.Error{Pos: model.Pos{File: file, Line: line, Col: col}, Msg: fmt.Sprintf("brackets nest deeper than %d here", lang.MaxNesting)}
			}
		case ')', ']', '}':
			depth--
		case '\n':
			line, col = line+1, 0
		}
		col++
	}
	return nil
}

// ccPos matches the location cc puts before a message, ccOrigin the
// place in cc's own source it may put after.
var (
	ccPos    = regexp.MustCompile(`^(.*?):(\d+):(\d+): (.*)$`)
	ccOrigin = regexp.MustCompile(` \([a-z0-9_]+\.go:\d+:[^)]*\)`)
)

// ccError turns cc's error into a located one: the first message, with
// the user's path and without cc's own source locations.
func ccError(file, abs string, src []byte, err error) error {
	msg := strings.TrimSpace(err.Error())
	msg, _, _ = strings.Cut(msg, "\n")
	msg = ccOrigin.ReplaceAllString(msg, "")
	m := ccPos.FindStringSubmatch(msg)
	if m == nil {
		return &lang.Error{Pos: model.Pos{File: file, Line: 1, Col: 1}, Msg: msg, Err: err}
	}
	var line, col int
	fmt.Sscan(m[2], &line)
	fmt.Sscan(m[3], &col)
	f, text := m[1], m[4]
	lastLine, lastCol := 1+bytes.Count(src, []byte("\n")), 1+len(src)-(bytes.LastIndexByte(src, '\n')+1)
	switch f {
	case abs:
		f = file
		if line > lastLine {
			// In the line ends translate adds: at the end of the file.
			line, col = lastLine, lastCol
		}
	case "<end>":
		// What the parser found at endSentinel, it found at the end of
		// the file.
		f, line, col = file, lastLine, lastCol
		text = strings.Replace(text, "unexpected 'static'", "unexpected end of file", 1)
	case "<predefined>":
		// Where the preprocessor could not place what it refused (an
		// #include of a macro it cannot read), the file is to blame.
		f, line, col = file, 1, 1
	}
	if text == "invalid argument" && f == file {
		// The preprocessor's word for an #include it cannot read: at
		// the line it names, or else the first #include of a macro.
		lines := strings.Split(string(src), "\n")
		include := func(n int) bool { return n >= 1 && n <= len(lines) && includeRE.MatchString(lines[n-1]) }
		if i := slices.IndexFunc(lines, includesMacro); !include(line) && i >= 0 {
			line, col = i+1, 1
		}
		if include(line) {
			text = `#include takes "FILE" or <FILE>`
		}
	}
	return &lang.Error{Pos: model.Pos{File: f, Line: line, Col: col}, Msg: text, Err: errors.Unwrap(err)}
}

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// TestBadFlagsFast checks that a flag out of its range is refused before
// any work, within a second, with exit status 2 and a message naming it.
func TestBadFlagsFast(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explore", "dlsym", "--workers", "0"}, "--workers 0"},
		{[]string{"explore", "dlsym", "--workers", "-2"}, "--workers -2"},
		{[]string{"explore", "dlsym", "--timeout", "-1s"}, "--timeout -1s"},
		{[]string{"explore", "dlsym", "--max-depth", "0"}, "--max-depth 0"},
		{[]string{"explore", "dlsym", "--max-executions", "-1"}, "--max-executions -1"},
		{[]string{"explore", "dlsym", "--max-states", "-1"}, "--max-states -1"},
		{[]string{"explore", "dlsym", "--preemption-bound", "-5"}, "--preemption-bound -5"},
		{[]string{"explore", "dlsym", "--max-memory", "lots"}, "--max-memory"},
		{[]string{"explore", "dlsym", "--engine", "bfs"}, "unknown engine"},
		{[]string{"explore", "dlsym", "--engine", "states", "--max-executions", "5"}, "--max-states"},
		{[]string{"explore", "dlsym", "--property", "lib-int"}, "did you mean lib-init?"},
		{[]string{"explore", "dlsym", "--model", "rc1l"}, "did you mean rc11?"},
		{[]string{"explore", "dlsm"}, "did you mean dlsym?"},
		{[]string{"compare", "execenv", "--format", "xml"}, "unknown format"},
		{[]string{"compare", "execenv", "--workers", "0"}, "--workers 0"},
		{[]string{"simulate", "dlsym", "--runs", "0"}, "--runs 0"},
		{[]string{"simulate", "dlsym", "--depth", "0"}, "--depth 0"},
		{[]string{"simulate", "dlsym", "--property", "nope"}, "--property: protocol dlsym has no property nope"},
		{[]string{"linearize", "dlsym", "--clients", "0"}, "--clients 0"},
		{[]string{"linearize", "dlsym", "--ops", "-1"}, "--ops -1"},
		{[]string{"linearize", "dlsym", "--timeout", "-1s"}, "--timeout -1s"},
		{[]string{"litmus", "--workers", "0", "../../protocols/litmus/testdata/MP+rlx.litmus"}, "--workers 0"},
		{[]string{"litmus", "--why", "1:r9=1", "../../protocols/litmus/testdata/MP+rlx.litmus"}, "thread 1 has no register r9"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			start := time.Now()
			code, out, errText := runCLI(tc.args...)
			if el := time.Since(start); el > time.Second {
				t.Errorf("took %v to refuse", el)
			}
			if code != exitUsage || !strings.Contains(errText, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q\n%s", code, errText, tc.msg, out)
			}
		})
	}
}

// TestBoundedRunsDeterministic checks that a run cut by a count gives the
// same result whatever the number of workers.
func TestBoundedRunsDeterministic(t *testing.T) {
	seconds := regexp.MustCompile(`"seconds": [0-9.e-]+`)
	for _, args := range [][]string{
		{"explore", "execenv", "--json", "--engine", "dpor", "--max-executions", "40"},
		{"explore", "execenv", "--json", "--engine", "states", "--max-states", "300"},
		{"explore", "dlsym", "--json", "--variant", "unordered", "--engine", "dpor", "--max-states", "200"},
	} {
		var outs []string
		for _, w := range []string{"1", "2", "4"} {
			code, out, errText := runCLI(append(args, "--workers", w)...)
			if code != exitNoVerdict && code != exitViolation {
				t.Fatalf("%v --workers %s: exit %d: %s", args, w, code, errText)
			}
			outs = append(outs, seconds.ReplaceAllString(out, `"seconds": 0`))
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("%v: the results differ between 1, 2 and 4 workers:\n%s\n%s\n%s", args, outs[0], outs[1], outs[2])
		}
	}
}

// buildCommand builds the command into dir and returns its path.
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(dir, "ordercheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestMemoryBound checks that --max-memory bounds the process's resident
// memory, not only the explorer's heap: an exploration that would grow
// past it stops with no verdict, its peak within the bound, what the
// command holds doing nothing (its code and runtime: `list`'s peak) and a
// fixed allowance.
func TestMemoryBound(t *testing.T) {
	bin := buildCommand(t, t.TempDir())
	idle := exec.Command(bin, "list")
	if err := idle.Run(); err != nil {
		t.Fatal(err)
	}
	const bound = 120 << 20
	allowance := idle.ProcessState.SysUsage().(*syscall.Rusage).Maxrss<<10 + 24<<20
	for _, engine := range []string{"states"} { // the memory check is the runner's, whichever engine
		cmd := exec.Command(bin, "explore", "dlsym", "--variant", "fixed", "--param", "N=9", "--model", "rc11", "--engine", engine, "--max-memory", "120MiB", "--timeout", "60s")
		var out strings.Builder
		cmd.Stdout = &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if code != exitNoVerdict || !strings.Contains(out.String(), "max-memory") {
			t.Errorf("%s: exit %d, want %d and the max-memory bound:\n%.300s", engine, code, exitNoVerdict, out.String())
		}
		if peak > bound+bound/10+allowance {
			t.Errorf("%s: peak resident memory %d MiB under a bound of %d MiB", engine, peak>>20, bound>>20)
		}
	}
	// Reading and compiling are bounded too: a generated protocol of 25
	// MB, a million statements in one thread.
	huge := filepath.Join(t.TempDir(), "huge.oc")
	var src strings.Builder
	src.WriteString("protocol huge\nshared x = 0\nthread t {\n")
	for i := range 2_000_000 {
		fmt.Fprintf(&src, "  x = %d\n", i)
	}
	src.WriteString("}\n")
	if err := os.WriteFile(huge, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "explore", huge, "--max-memory", "120MiB")
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if code != exitNoVerdict || !strings.Contains(errb.String(), "needs more memory than the bound allows") {
		t.Errorf("a huge protocol: exit %d, want %d (a bound cut the work short) and the bound named: %s", code, exitNoVerdict, errb.String())
	}
	if peak > bound+bound/10+allowance {
		t.Errorf("a huge protocol: peak resident memory %d MiB under a bound of %d MiB", peak>>20, bound>>20)
	}
}

// TestInterrupt checks that Ctrl-C stops a long run within a second of
// its arrival, with what it found and no verdict (exit 3).
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	// Seven threads writing one location and reading it back: millions of
	// executions, minutes of work.
	w7 := "C W-7\n\n{}\n"
	for i := range 7 {
		w7 += fmt.Sprintf("\nP%d (atomic_int* x) {\n  atomic_store_explicit(x, %d, memory_order_relaxed);\n  int r0 = atomic_load_explicit(x, memory_order_relaxed);\n}\n", i, i+1)
	}
	w7 += "\nexists (0:r0=1)\n"
	litmusFile := filepath.Join(dir, "W-7.litmus")
	if err := os.WriteFile(litmusFile, []byte(w7), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"explore", "dlsym", "--variant", "fixed", "--param", "N=9", "--model", "tso"},
		{"explore", "dlsym", "--variant", "fixed", "--param", "N=6", "--engine", "dpor"},
		{"simulate", "dlsym", "--variant", "fixed", "--runs", "100000000"},
		{"litmus", litmusFile, "--workers", "1"},
		{"explore", "dlsym", "--variant", "fixed", "--param", "N=8", "--procs", "2"},
		{"tune", "dlsym", "--param", "N=6", "--fences"},
		{"test", "../../protocols/examples/msqueue.oc", "--all"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			err := cmd.Wait()
			if el := time.Since(sent); el > 1500*time.Millisecond {
				t.Errorf("stopped %v after the interrupt", el)
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != exitNoVerdict {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitNoVerdict, out.String(), errb.String())
			}
			if strings.Contains(errb.String(), "ordercheck: interrupted") {
				t.Errorf("stopped without printing what it had:\nstdout: %s\nstderr: %s", out.String(), errb.String())
			}
			workersGone(t, bin)
		})
	}
}

// workersGone checks that no worker process of the command bin is left
// (Linux: from /proc).
func workersGone(t *testing.T, bin string) {
	t.Helper()
	workers := func() []int {
		var pids []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[0] == bin && args[1] == "worker" {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := workers()
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("worker processes left: %v", pids)
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestWorkersDieWithTheirParent kills a coordinator that started worker
// processes (--procs): they stop too, rather than wait for a server that
// is gone.
func TestWorkersDieWithTheirParent(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	cmd := exec.Command(bin, "explore", "dlsym", "--variant", "fixed", "--param", "N=8", "--procs", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	workersGone(t, bin)
}

// TestMessagesStayShort checks that a megabyte of name in the input makes
// an error message of a line, still located.
func TestMessagesStayShort(t *testing.T) {
	file := filepath.Join(t.TempDir(), "long.oc")
	long := strings.Repeat("a", 1<<20)
	if err := os.WriteFile(file, []byte("protocol p\nshared x = 0\nthread t {\n  r = "+long+"(x)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"explore", file},
		{"explore", "dlsym", "--variant", long},
		{"explore", "dlsym", "--param", long + "=1"},
		{"explore", "dlsym", "--model", long},
	} {
		code, _, errText := runCLI(args...)
		if code != exitUsage || len(errText) > 600 || !strings.Contains(errText, "…") {
			t.Errorf("%.40s...: exit %d, a message of %d bytes: %.200s", strings.Join(args, " "), code, len(errText), errText)
		}
	}
}

// TestHostileSources checks that sources too deep or too large for any
// real test are refused with a located message, not a crashed stack or an
// exhausted memory.
func TestHostileSources(t *testing.T) {
	dir := t.TempDir()
	n := 1000000
	if testing.Short() {
		n = 20000 // still twenty times the depth refused
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	blocks := write("blocks.litmus", "C deep\n{}\nP0(atomic_int* x) {\n"+strings.Repeat("{", n)+strings.Repeat("}", n)+"\n}\nexists (0:r0=0)\n")
	parens := write("parens.litmus", "C deep\n{}\nP0(atomic_int* x) {\n  int r0 = "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+";\n}\nexists (0:r0=0)\n")
	nots := write("nots.litmus", "C deep\n{}\nP0(atomic_int* x) {\n  int r0 = "+strings.Repeat("!", n)+"1;\n}\nexists (0:r0=0)\n")
	cond := write("cond.litmus", "C deep\n{}\nP0(atomic_int* x) {\n  int r0 = 1;\n}\nexists "+strings.Repeat("(", n)+"0:r0=0"+strings.Repeat(")", n)+"\n")
	ocBlocks := write("blocks.oc", "protocol deep\nshared x = 0\nthread t {\n"+strings.Repeat("if 1 { ", n)+"x = 1"+strings.Repeat(" }", n)+"\n}\n")
	ocParens := write("parens.oc", "protocol deep\nshared x = 0\nthread t {\n  x = "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+"\n}\n")
	ocSum := write("sum.oc", "protocol flat\nshared x = 0\nthread t {\n  x = 1"+strings.Repeat(" + 1", n)+"\n}\n")
	sum := write("sum.litmus", "C flat\n{}\nP0(atomic_int* x) {\n  int r0 = 1"+strings.Repeat(" + 1", n)+";\n}\nexists (0:r0=0)\n")
	ocNots := write("nots.oc", "protocol deep\nshared x = 0\nthread t {\n  x = "+strings.Repeat("-", n)+"1\n}\n")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explore", ocBlocks}, "blocks.oc:4:6997: nested more than 1000 deep"},
		{[]string{"explore", ocParens}, "parens.oc:4:1006: nested more than 1000 deep"},
		{[]string{"explore", ocNots}, "nots.oc:4:1006: nested more than 1000 deep"},
		{[]string{"explore", ocSum}, "sum.oc:4:4005: nested more than 1000 deep"},
		{[]string{"litmus", sum}, "sum.litmus:4:4010: nested more than 1000 deep"},
		{[]string{"litmus", blocks}, "blocks.litmus:4:1001: nested more than 1000 deep"},
		{[]string{"litmus", parens}, "nested more than 1000 deep"},
		{[]string{"litmus", nots}, "nested more than 1000 deep"},
		{[]string{"litmus", cond}, "nested more than 1000 deep"},
		{[]string{"litmus", "/dev/zero"}, "not a regular file (a device)"},
		{[]string{"explore", "/dev/zero"}, "not a regular file (a device)"},
	} {
		code, _, errText := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errText, tc.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errText, tc.msg)
		}
	}
}

// TestOutputsSurvive checks every writer of a file through the command:
// under a file-size limit smaller than the output, the file keeps its old
// text (fmt -w of a large file, the review page, a trace); and a path
// that cannot be written is refused before any work, however long the
// work would be.
func TestOutputsSurvive(t *testing.T) {
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	const old = "the old text\n"
	// An unformatted protocol file of a megabyte.
	big := filepath.Join(dir, "big.oc")
	src := "protocol big\nshared x = 0\nthread t {\n" + strings.Repeat("  x   =   1\n", 90000) + "}\n"
	if err := os.WriteFile(big, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		file string // the file written, holding old (or src) before
		args []string
	}{
		{"fmt -w", big, []string{"fmt", "-w", big}},
		{"compare -o", filepath.Join(dir, "review.html"), []string{"compare", "dlsym", "--format", "html", "-o", filepath.Join(dir, "review.html")}},
		{"explore --trace", filepath.Join(dir, "t.json"), []string{"explore", "dlsym", "--trace", filepath.Join(dir, "t.json")}},
		{"test --junit", filepath.Join(dir, "j.xml"), []string{"test", "dlsym", "--junit", filepath.Join(dir, "j.xml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := src
			if tc.file != big {
				before = old
				if err := os.WriteFile(tc.file, []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("sh", "-c", `ulimit -f 2; exec "$@"`, "sh", bin)
			cmd.Args = append(cmd.Args, tc.args...)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the command succeeded under a 1 KB file-size limit: %s", out)
			}
			if b, _ := os.ReadFile(tc.file); string(b) != before {
				t.Errorf("the file holds %d bytes, not its old text: %s", len(b), out)
			}
		})
	}
	for _, args := range [][]string{
		{"explore", "dlsym", "--param", "N=9", "--model", "sc", "--trace", "/nonexistent/t.json"},
		{"explore", "dlsym", "--param", "N=9", "--model", "sc", "--dot", "/nonexistent/t.dot"},
		{"explore", "dlsym", "--param", "N=9", "--model", "sc", "--html", "/nonexistent/t.html"},
		{"compare", "dlsym", "--param", "N=9", "-o", "/nonexistent/c.txt"},
		{"test", "dlsym", "--junit", dir},
		{"tune", "dlsym", "--param", "N=9", "--html", "/nonexistent/t.html"},
	} {
		start := time.Now()
		code, _, errText := runCLI(args...)
		if code != exitUsage || time.Since(start) > 5*time.Second || !strings.Contains(errText, "cannot write") && !strings.Contains(errText, "not a regular file") {
			t.Errorf("%v: exit %d after %v: %s", args, code, time.Since(start), errText)
		}
	}
}

// TestSpecialFiles checks that a FIFO named like a protocol file in a
// folder is skipped, with a word, by every command that walks folders (it
// used to block them), and is bad input when named.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.oc")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	src, err := os.ReadFile("../../protocols/examples/once.oc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "once.oc"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"fmt", "-l", dir}, {"vet", dir}, {"test", dir}} {
		start := time.Now()
		code, _, errText := runCLI(args...)
		if code != 0 || time.Since(start) > 5*time.Second || !strings.Contains(errText, "skipped "+fifo+": not a regular file") {
			t.Errorf("%v: exit %d after %v: %s", args, code, time.Since(start), errText)
		}
	}
	for _, args := range [][]string{{"explore", fifo}, {"litmus", fifo}, {"fmt", fifo}, {"test", fifo}} {
		code, out, errText := runCLI(args...)
		if code != exitUsage || !strings.Contains(out+errText, "not a regular file (a FIFO)") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, errText)
		}
	}
}

// TestProgressLine runs long commands in a pseudo-terminal (script(1)):
// explore, compare and test show a progress line on it, refreshed about
// every second (what was explored, its rate, memory and time; the cell of
// how many); --quiet and JSON output show none.
func TestProgressLine(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to run a pseudo-terminal")
	}
	bin := buildCommand(t, t.TempDir())
	for _, tc := range []struct {
		args []string
		want string // in the progress line; "" for none
	}{
		{[]string{"explore", "dlsym", "--variant", "fixed", "--param", "N=8", "--timeout", "3s"}, " states ("},
		{[]string{"explore", "dlsym", "--variant", "fixed", "--param", "N=6", "--engine", "dpor", "--timeout", "3s"}, " executions, "},
		{[]string{"compare", "dlsym", "--param", "N=8", "--timeout", "1500ms", "--models", "rc11", "--variants", "fixed,original"}, "cell 1 of "},
		{[]string{"test", "../../protocols/examples/msqueue.oc", "--all", "--run", "arm", "--timeout", "3s"}, " cells done, "},
		{[]string{"explore", "dlsym", "--variant", "fixed", "--param", "N=8", "--timeout", "2s", "--quiet"}, ""},
		{[]string{"explore", "dlsym", "--variant", "fixed", "--param", "N=8", "--timeout", "2s", "--json"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			line := bin
			for _, a := range tc.args {
				line += " '" + a + "'"
			}
			out, _ := exec.Command(script, "-qfec", line, "/dev/null").CombinedOutput()
			shown := strings.Contains(string(out), "\r\x1b[K")
			if tc.want == "" && shown || tc.want != "" && (!shown || !strings.Contains(string(out), tc.want)) {
				t.Errorf("progress shown %v, want %q:\n%q", shown, tc.want, out)
			}
		})
	}
}

// TestInternalErrorsExit4 checks that an internal error exits 4 with the
// request to report it, however a command wrapped it on the way out, and
// that the other errors exit as exitStatus says.
func TestInternalErrorsExit4(t *testing.T) {
	bug := &explore.InternalError{Msg: "a step without a way"}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"bare", bug, exitInternal},
		{"wrapped", fmt.Errorf("compiling: %w", bug), exitInternal},
		{"usage", errors.New("no such protocol"), exitUsage},
		{"memory bound", fmt.Errorf("compiling: %w", model.ErrMemoryBound), exitNoVerdict},
		{"status", &exitError{code: exitViolation}, exitViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			if got := exitStatus(&stderr, []string{"explore", "x"}, tc.err); got != tc.want {
				t.Errorf("exit %d, want %d (%s)", got, tc.want, stderr.String())
			}
			if tc.want == exitInternal && !strings.Contains(stderr.String(), "This is a bug of ordercheck") {
				t.Errorf("stderr %q does not ask for a report", stderr.String())
			}
		})
	}
}

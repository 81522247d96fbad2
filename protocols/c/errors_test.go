package c_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/protocols/c"
)

// threads wraps a body as the one thread of a program with a global x.
func threads(decls, body string) string {
	return "#include <pthread.h>\n#include <stdatomic.h>\n" + decls + "\nvoid *t(void *a) {\n" + body + "\n\treturn NULL;\n}\nint main(void) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, t, NULL);\n\tpthread_join(h, NULL);\n\treturn 0;\n}\n"
}

// macroDepth nests parentheses 10^k deep through k macros, from a few
// brackets of source text.
func macroDepth(k int) string {
	var b strings.Builder
	b.WriteString("#define M0(x) ((((((((((x))))))))))\n")
	for i := 1; i < k; i++ {
		fmt.Fprintf(&b, "#define M%d(x) M%d(M%d(M%d(M%d(M%d(M%d(M%d(M%d(M%d(M%d(x))))))))))\n", i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	fmt.Fprintf(&b, "int x = M%d(1);\nint main(void) { return 0; }\n", k-1)
	return b.String()
}

// TestErrors feeds the front end C outside its subset and hostile C: each
// gets an error located in the file that names what is wrong, never a
// panic, a hang or a silent approximation.
func TestErrors(t *testing.T) {
	bomb := "#define A0 +1\n"
	for i := 1; i <= 40; i++ {
		bomb += fmt.Sprintf("#define A%d A%d A%d\n", i, i-1, i-1)
	}
	bomb += "int x = 0 A40;\nint main(void) { return 0; }\n"
	tests := []struct {
		name, src, want string
	}{
		{"syntax", "int main(void) { return 0 }\n", "x.c:1:"},
		// cc's parser loops for ever at the end of a file inside a
		// pointer declarator, skipping tokens (found by fuzzing).
		{"ends in a pointer", "int x;\nvoid *", "x.c:2:7: unexpected end of file, expected direct declarator"},
		{"pointer then junk to the end", "int *;", "x.c:1:6: unexpected ';', expected type qualifier"},
		{"pointer, then an open comment", "void * /*", "x.c:1:8: comment not terminated"},
		{"pointer, then an open #if", "void *\n#if 0\n", "x.c:3:1: expected #endif"},
		{"include of a macro", "int x;\n#include defined A\n", "x.c:2:1: #include takes \"FILE\" or <FILE>"},
		{"a backslash at the end, in a character", "int x;\nint c = '\\", "x.c:2:9: character constant not terminated"},
		{"a backslash at the end, in a string", "\"\\\n", "x.c:1:1: string literal not terminated"},
		{"bad include, then a pointer", "#include foo\n*r", "x.c:1:10: #include takes \"FILE\" or <FILE>"},
		{"a body without parameters", "#include <pthread.h>\nvoid bump {}\nint main(void) {\n\tpthread_t a;\n\tpthread_create(&a, 0, bump, 0);\n\treturn 0;\n}\n", "x.c:2:6: bump has a body but no parameter list: write bump(void)"},
		{"function pointer", threads("int f(void) { return 1; }\nint (*fp)(void) = f;", ""), "x.c:4:5: function pointers are not supported (fp)"},
		{"switch", threads("int x;", "\tswitch (x) { case 1: x = 2; }"), "x.c:5:2: switch is not supported"},
		{"goto", threads("int x;", "\tgoto out;\nout:\n\tx = 1;"), "x.c:5:2: goto is not supported"},
		{"union", threads("union u { int a; long b; } v;", "\tv.a = 1;"), "unions are not supported"},
		{"union in a struct", threads("union in { int a; };\nstruct out { int b; union in i; } v;", "\tv.b = 1;"), "x.c:4:35: field i of v: unions are not supported"},
		{"bit-field", threads("struct s { int a : 3; } v;", "\tv.a = 1;"), "x.c:3:25: field a of v: bit-fields are not supported"},
		{"unnamed member", threads("struct s { struct { int a; }; } v;", "\tv.a = 1;"), "x.c:3:33: an unnamed member of v is not supported: name it"},
		{"index past a member", threads("struct in { int a[2]; };\nstruct out { struct in i[2]; } v;", "\tv.i[1].a[2] = 1;"), "x.c:6:11: index 2 is out of range: field v.i[1].a has 2 elements"},
		{"bad index of a row", threads("int g[2][2];\nint h(void);", "\tg[h()][0] = 1;"), "x.c:6:4: h is neither defined in this file"},
		{"assignment right of ||", threads("int x;", "\tint i = 0;\n\tif (x || (i = 2))\n\t\tx = 2;"), "x.c:6:11: a side effect on the right of ||"},
		{"++ right of &&", threads("int x;", "\tint i = 0;\n\tif (x && i++)\n\t\tx = 2;"), "x.c:6:11: a side effect on the right of && (a thread start, ++, a compare-exchange) is not supported: write an if"},
		{"too many rows", threads("int g[2][2] = {{1, 2}, {3, 4}, {5}};", "\tg[0][0] = 1;"), "x.c:3:32: too many items in initializer"},
		{"row too long", threads("int g[2][2] = {{1, 2, 3}};", "\tg[0][0] = 1;"), "x.c:3:23: too many items in initializer"},
		{"designator of no field", threads("struct s { int a; int b[2]; } v = { .c = 1 };", "\tv.a = 1;"), "x.c:3:37: type struct s {a int; b array of 2 int} has no member c"},
		{"unbraced array field", threads("struct s { int b[2]; int a; } v = { 1, 2 };", "\tv.a = 1;"), "field b of v: brace an array field's values"},
		{"string", threads("char *s;", "\ts = \"hi\";"), "strings are not supported"},
		{"barrier's result", threads("pthread_barrier_t b;", "\tint rc = pthread_barrier_wait(&b);"), "x.c:5:11: the result of pthread_barrier_wait (PTHREAD_BARRIER_SERIAL_THREAD for one thread) is not supported: call it as a statement"},
		{"barrier never initialised", threads("pthread_barrier_t b;", "\tpthread_barrier_wait(&b);"), "x.c:5:2: pthread_barrier_wait on b, which pthread_barrier_init in main does not initialise first"},
		{"barrier initialised in a thread", threads("pthread_barrier_t b;", "\tpthread_barrier_init(&b, NULL, 1);"), "x.c:5:2: a barrier is initialised in main only"},
		{"array of barriers", threads("pthread_barrier_t b[2];", "\tpthread_barrier_wait(&b[0]);"), "x.c:5:23: a barrier must be a global pthread_barrier_t passed as &b (arrays of barriers are not supported)"},
		{"barrier initialised twice", "#include <pthread.h>\npthread_barrier_t b;\nint main(void) {\n\tpthread_barrier_init(&b, NULL, 1);\n\tpthread_barrier_init(&b, NULL, 1);\n\tpthread_barrier_wait(&b);\n\treturn 0;\n}\n", "x.c:5:2: barrier b is initialised twice"},
		{"more waiters than a barrier's count", "#include <pthread.h>\npthread_barrier_t b;\nvoid *t(void *a) {\n\tpthread_barrier_wait(&b);\n\treturn NULL;\n}\nint main(void) {\n\tpthread_t h[3];\n\tpthread_barrier_init(&b, NULL, 2);\n\tfor (int i = 0; i < 3; i++)\n\t\tpthread_create(&h[i], NULL, t, NULL);\n\treturn 0;\n}\n", "x.c:4:2: barrier b: 3 threads can wait on it, more than its count 2"},
		{"barrier count not constant", "#include <pthread.h>\npthread_barrier_t b;\nint n;\nint main(void) {\n\tpthread_barrier_init(&b, NULL, n + 0 * n);\n\tpthread_barrier_wait(&b);\n\treturn 0;\n}\n", "x.c:5:33: a barrier's count must be a constant of at least 1"},
		{"float", threads("double d;", "\td = 1.5;"), "floating-point"},
		{"undefined call", threads("void f(void);", "\tf();"), "x.c:5:2: f is neither defined in this file nor a function the front end knows"},
		{"recursion", threads("int f(int n) { return n ? f(n - 1) : 0; }", "\tf(3);"), "recursion is not supported"},
		{"two locals in memory", threads("atomic_int *p;", "\t{ int l; p = &l; }\n\t{ int l; p = &l; }"), "x.c:6:8: two locals of one function are called l and live in memory: rename one"},
		{"local union", threads("", "\tunion { int a; long b; } u;\n\tu.a = 1;"), "unions are not supported"},
		{"thread count decided at run time", "#include <pthread.h>\n#include <stdatomic.h>\natomic_int flag;\nvoid *t(void *a) { return NULL; }\nint main(void) {\n\tpthread_t h[2];\n\tint n = 1;\n\tif (atomic_load(&flag))\n\t\tn = 2;\n\tfor (int j = 0; j < n; j++)\n\t\tpthread_create(&h[j], NULL, t, NULL);\n\treturn 0;\n}\n", "x.c:10:2: a loop that starts or joins threads must count over constants"},
		{"thread count from a loop", "#include <pthread.h>\nvoid *t(void *a) { return NULL; }\nint main(void) {\n\tpthread_t h[4];\n\tint k = 0;\n\twhile (k < 3)\n\t\tk++;\n\tfor (int j = 0; j < k; j++)\n\t\tpthread_create(&h[j], NULL, t, NULL);\n\treturn 0;\n}\n", "x.c:8:2: a loop that starts or joins threads must count over constants"},
		{"thread in a loop", "#include <pthread.h>\nvoid *t(void *a) { return NULL; }\nint n;\nint main(void) {\n\tpthread_t h;\n\twhile (n < 3) { pthread_create(&h, NULL, t, NULL); n++; }\n\treturn 0;\n}\n", "x.c:6:"},
		{"nesting", "int x = " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000) + ";\nint main(void) { return 0; }\n", "x.c:1:"},
		{"macro bomb", bomb, "x.c:"},
		{"macro nesting", macroDepth(6), "x.c:"},
		{"macro nesting 10^5 deep", macroDepth(5), "x.c:"},
		{"self include", "#include \"x.c\"\nint main(void) { return 0; }\n", "x.c:"},
		{"huge array", threads("int arr[100000000];", "\tarr[5] = 1;"), "x.c:3:"},
		{"variant comment", "// ordercheck: variant\nint main(void) { return 0; }\n", "x.c:1:16: a variant comment names the variant"},
		{"variant word", "// ordercheck: variant v -O2\nint main(void) { return 0; }\n", "x.c:1:26: a variant comment holds default, shipped and -DNAME[=VALUE] words, found -O2"},
		{"variant's macro name", "// ordercheck: variant v -D0=1\nint main(void) { return 0; }\n", "x.c:1:26: -D0=1: \"0\" is not a macro name"},
		{"variant twice", "// ordercheck: variant v\n// ordercheck: variant v\nint main(void) { return 0; }\n", "x.c:2:16: variant v is declared twice"},
		{"comment", "// ordercheck: expext * : holds\nint main(void) { return 0; }\n", "x.c:1:16: an ordercheck comment holds a variant, a property or an expect clause"},
		{"property comment", "// ordercheck: property\nint main(void) { return 0; }\n", "x.c:1:16: a property comment names the property"},
		{"property built in", "// ordercheck: property deadlock\nint main(void) { return 0; }\n", "x.c:1:16: property deadlock is built in"},
		{"property description", "// ordercheck: property p not quoted\nint main(void) { return 0; }\n", "x.c:1:16: a property's description is a quoted string"},
		{"property twice", "// ordercheck: property p\n// ordercheck: property p\nint main(void) { return 0; }\n", "x.c:2:16: property p is already declared at x.c:1:16"},
		{"assert of a misspelt property", "// ordercheck: property handoff\n" + threads("int x;", "\t__ordercheck_assert((x == 0 && \"handof: x changed\"), \"\");"), "x.c:6:33: this assert names property handof, which no property comment declares (did you mean handoff?)"},
		{"thread started by a function that runs twice", "#include <pthread.h>\nvoid *w(void *a) { return NULL; }\nvoid *t(void *a) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, w, NULL);\n\treturn NULL;\n}\nint main(void) {\n\tpthread_t h[2];\n\tfor (int i = 0; i < 2; i++)\n\t\tpthread_create(&h[i], NULL, t, NULL);\n\treturn 0;\n}\n", "x.c:5:2: threads are started in main or in a function that runs once"},
		{"thread started by a routine also called", "#include <pthread.h>\nvoid *w(void *a) { return NULL; }\nvoid *t(void *a) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, w, NULL);\n\treturn NULL;\n}\nint main(void) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, &t, NULL);\n\tt(NULL);\n\treturn 0;\n}\n", "x.c:5:2: threads are started in main or in a function that runs once"},
		{"thread started by a function called in a loop", "#include <pthread.h>\nvoid *w(void *a) { return NULL; }\nvoid s(void) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, w, NULL);\n}\nvoid *t(void *a) {\n\tfor (int i = 0; i < 2; i++)\n\t\ts();\n\treturn NULL;\n}\nint main(void) {\n\tpthread_t h;\n\tpthread_create(&h, NULL, t, NULL);\n\treturn 0;\n}\n", "x.c:5:2: threads are started in main or in a function that runs once"},
		{"error in one variant", "// ordercheck: variant good\n// ordercheck: variant bad -DBAD\nint x;\nint main(void) {\n#ifdef BAD\n\tgoto out;\nout:\n#endif\n\tx = 1;\n\treturn 0;\n}\n", "x.c:6:2: goto is not supported (in variant bad)"},
		{"unknown variant in expect", "// ordercheck: variant good\n// ordercheck: expect bad: holds\nint main(void) { return 0; }\n", "x.c:2:23:"},
		{"pthread_exit in main", "#include <pthread.h>\nint main(void) {\n\tpthread_exit(NULL);\n}\n", "x.c:3:2: pthread_exit in main is not supported"},
		{"asm", threads("", "\t__asm__(\"nop\");"), "asm statements are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Parse("x.c", []byte(tt.src), c.Options{})
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
			t.Logf("%v", err)
		})
	}
}

package syntax

import (
	"fmt"
	"io"
	"os"
)

// MaxSource is the largest source file the front ends read: far beyond
// any protocol or litmus test, and a bound on what a wrong path (a device,
// a log file) can make them hold.
const MaxSource = 32 << 20

// MaxNesting bounds how deep blocks, parentheses and unary operators may
// nest in a source, so that a hostile one is refused with a located error
// rather than overflowing the parser's stack.
const MaxNesting = 1000

// ReadFile returns the text of the source file at path, refusing one
// larger than MaxSource.
func ReadFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSource+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxSource {
		return "", fmt.Errorf("%s: larger than %d MB: not a source file ordercheck reads", path, MaxSource>>20)
	}
	return string(b), nil
}

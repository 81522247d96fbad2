package syntax

import (
	"fmt"
	"io"
	"io/fs"
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
	// A FIFO would block the open, a device never end: only a regular
	// file is a source.
	if st, err := os.Stat(path); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%s): not a source file ordercheck reads", path, fileKind(st.Mode()))
	}
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

// fileKind names the kind of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

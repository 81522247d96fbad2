package dist

import (
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/nats-io/nats.go"
)

// Procs starts a cluster on this machine: an embedded server and n worker
// processes, each the command worker returns for the server's URL and a
// worker name ("proc1", ...), and connects to it (opt names the
// connection). A worker's standard input is a pipe that closes when this
// process ends, even killed: a worker that stops then (the ordercheck
// command's worker --with-parent) dies with it. Their standard error is
// this process's. done stops the workers and the server.
func Procs(n int, worker func(url, name string) *exec.Cmd, opt DialOptions) (nc *nats.Conn, done func(), err error) {
	var closers []func()
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	srv, err := StartServer()
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, srv.Close)
	for i := range n {
		cmd := worker(srv.URL(), "proc"+strconv.Itoa(i+1))
		// Not a writer of this process's: it would be written by the
		// goroutine that copies the worker's, unsynchronised with this
		// process's own writes.
		cmd.Stderr = os.Stderr
		pipe, err := cmd.StdinPipe()
		if err == nil {
			if err = cmd.Start(); err != nil {
				pipe.Close()
			}
		}
		if err != nil {
			done()
			return nil, nil, err
		}
		closers = append(closers, stopper(cmd, pipe))
	}
	if nc, err = Dial(srv.URL(), opt); err != nil {
		done()
		return nil, nil, err
	}
	closers = append(closers, nc.Close)
	return nc, done, nil
}

// stopper returns what stops a started worker process.
func stopper(cmd *exec.Cmd, stdin io.Closer) func() {
	return func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}
}

package dist

import (
	"context"
	"net"

	"github.com/nats-io/nats.go"

	"github.com/ordercheck/ordercheck/checker"
)

// Restart stops the server, losing every stream, and starts another on
// the same port, as an operator's restart of a server with memory storage
// does.
func (s *Server) Restart() error {
	port := s.srv.Addr().(*net.TCPAddr).Port
	s.Close()
	n, err := startServer(port)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// Compare checks pr's comparison on the workers of the cluster nc reaches,
// as the command does: a Runner set in the options, ctx theirs.
func Compare(ctx context.Context, nc *nats.Conn, pr *checker.Protocol, copt checker.CompareOptions, opt Options) (*checker.Comparison, Stats, error) {
	r := &Runner{Conn: nc, Options: opt}
	copt.Runner, copt.Options.Context = r, ctx
	c, err := pr.Compare(copt)
	return c, r.Stats(), err
}

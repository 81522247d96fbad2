package dist

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Server is a NATS server with JetStream embedded in this process,
// listening on loopback only.
type Server struct {
	srv *server.Server
	dir string
}

// StartServer starts an embedded server on a free loopback port, its
// JetStream state in a temporary directory.
func StartServer() (*Server, error) {
	return startServer(server.RANDOM_PORT)
}

// startServer starts an embedded server on the loopback port given.
func startServer(port int) (*Server, error) {
	dir, err := os.MkdirTemp("", "ordercheck-nats-")
	if err != nil {
		return nil, err
	}
	srv, err := server.NewServer(&server.Options{
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
		MaxPayload: 8 << 20,
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		os.RemoveAll(dir)
		return nil, errors.New("the embedded NATS server did not start")
	}
	return &Server{srv: srv, dir: dir}, nil
}

// URL is the address clients reach the server at.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Close stops the server and removes its state.
func (s *Server) Close() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	os.RemoveAll(s.dir)
}

// DialOptions say how to reach a cluster.
type DialOptions struct {
	// Creds is a NATS credentials file (a user JWT and its key).
	Creds string
	// Context names a NATS context (the nats command's saved connection
	// settings: URL, credentials, TLS files), or its file's path; its URL
	// serves when Dial is given none.
	Context string
	// Insecure allows a nats:// address that is not loopback: jobs and
	// reports then cross the network unencrypted.
	Insecure bool
	// Name names the connection in the server's monitoring.
	Name string
}

// Dial connects to the NATS server at addr (one URL, or several separated
// by commas; "": the context's). A plain nats:// address must be loopback unless opt.Insecure:
// use tls:// to reach another machine.
func Dial(addr string, opt DialOptions) (*nats.Conn, error) {
	var opts []nats.Option
	if opt.Context != "" {
		url, copts, tls, err := readContext(opt.Context)
		if err != nil {
			return nil, err
		}
		if addr == "" {
			addr = url
		}
		opts = copts
		// A context's certificates make the connection TLS whatever the
		// scheme.
		opt.Insecure = opt.Insecure || tls
	}
	if addr == "" {
		return nil, errors.New("no NATS address: give a URL, or a context that has one")
	}
	for _, a := range strings.Split(addr, ",") {
		if err := checkAddr(strings.TrimSpace(a), opt.Insecure); err != nil {
			return nil, err
		}
	}
	opts = append(opts, nats.Name(opt.Name), nats.MaxReconnects(10), nats.ReconnectWait(500*time.Millisecond))
	if opt.Creds != "" {
		opts = append(opts, nats.UserCredentials(opt.Creds))
	}
	nc, err := nats.Connect(addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot reach NATS at %s: %s", Redact(addr), Redact(err.Error()))
	}
	return nc, nil
}

// userinfo matches the credentials of a URL in a text: user:password@ or
// token@ after a scheme.
var userinfo = regexp.MustCompile(`([a-z]+://)[^@/\s]*@`)

// Redact hides the credentials of the URLs in s (a user and password, or a
// token, before the host), so that no message, log or report prints them.
func Redact(s string) string {
	return userinfo.ReplaceAllString(s, "${1}REDACTED@")
}

func checkAddr(a string, insecure bool) error {
	u, err := url.Parse(a)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a NATS address (nats://HOST:PORT or tls://HOST:PORT)", Redact(a))
	}
	switch u.Scheme {
	case "tls", "wss":
		return nil
	case "nats", "ws":
	default:
		return fmt.Errorf("%q: unknown scheme %q (nats, tls, ws or wss)", Redact(a), u.Scheme)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() || insecure {
		return nil
	}
	return fmt.Errorf("%s is not loopback: jobs would cross the network unencrypted; use tls://%s, or --insecure to send them anyway", Redact(a), u.Host)
}

// errRestarted is a run's end when the stream its reports arrive on is
// gone or made anew.
var errRestarted = errors.New("the NATS server restarted (or the run's streams were deleted) during the run: its jobs and reports are gone; start the run again")

// streamWatch notices that the server restarted under a run: after the
// connection moves to another server (a reconnect), the stream the run
// reads from must still be the one it began with.
type streamWatch struct {
	nc      *nats.Conn
	s       jetstream.Stream
	server  string
	created time.Time
}

func watch(nc *nats.Conn, s jetstream.Stream) *streamWatch {
	return &streamWatch{nc: nc, s: s, server: nc.ConnectedServerId(), created: s.CachedInfo().Created}
}

// lost is errRestarted once the stream is gone or another one of its
// name was made; nil while the connection stays with its server.
func (w *streamWatch) lost(ctx context.Context) error {
	id := w.nc.ConnectedServerId()
	if id == "" || id == w.server {
		return nil
	}
	info, err := w.s.Info(ctx)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound), err == nil && !info.Created.Equal(w.created):
		return errRestarted
	case err == nil:
		w.server = id // another server of a cluster that has the stream
	}
	return nil
}

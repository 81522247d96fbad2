package dist_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/ordercheck/ordercheck/checker/dist"
)

// TestContext connects through NATS context files as the nats command
// saves them: by path and by name (in $XDG_CONFIG_HOME/nats/context), the
// context's URL held to the same rule as --cluster's.
func TestContext(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "nats", "context", "local.json"), `{"description": "here", "url": "`+s.URL()+`"}`)
	write(filepath.Join(dir, "far.json"), `{"url": "nats://10.1.2.3:4222"}`)
	write(filepath.Join(dir, "broken.json"), `{"url": `)
	for _, c := range []struct {
		name, url, context, err string
	}{
		{"by name", "", "local", ""},
		{"by path", "", filepath.Join(dir, "nats", "context", "local.json"), ""},
		{"the URL given wins", s.URL(), filepath.Join(dir, "far.json"), ""},
		{"not loopback", "", filepath.Join(dir, "far.json"), "is not loopback"},
		{"missing", "", "nowhere", `NATS context "nowhere"`},
		{"not JSON", "", filepath.Join(dir, "broken.json"), "broken.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc, err := dist.Dial(c.url, dist.DialOptions{Context: c.context})
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				nc.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, want an error saying %q", err, c.err)
			}
		})
	}
}

// TestContextCredentials connects to a server that wants a user and a
// password with a context that has them, and fails with one that has the
// wrong password.
func TestContextCredentials(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true, Username: "oc", Password: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		password string
		ok       bool
	}{{"s3cret", true}, {"guess", false}} {
		path := filepath.Join(dir, c.password+".json")
		if err := os.WriteFile(path, []byte(`{"url": "`+srv.ClientURL()+`", "user": "oc", "password": "`+c.password+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		nc, err := dist.Dial("", dist.DialOptions{Context: path})
		if (err == nil) != c.ok {
			t.Fatalf("password %q: error %v", c.password, err)
		}
		if nc != nil {
			nc.Close()
		}
	}
}

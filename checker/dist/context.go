package dist

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go"
)

// natsContext is the part of a NATS context file (what the nats command
// saves with "nats context save") that says how to connect.
type natsContext struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
	Token    string `json:"token"`
	Creds    string `json:"creds"`
	Nkey     string `json:"nkey"`
	Cert     string `json:"cert"`
	Key      string `json:"key"`
	CA       string `json:"ca"`
	TLSFirst bool   `json:"tls_first"`
}

// contextPath returns the file of the context name: a path as it is (one
// with a separator, or ending in .json), else NAME.json in the nats
// command's context folder ($XDG_CONFIG_HOME/nats/context, by default
// ~/.config/nats/context).
func contextPath(name string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.HasSuffix(name, ".json") {
		return name, nil
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "nats", "context", name+".json"), nil
}

// readContext reads the context name and returns its URL, the options
// that connect as it says, and whether they set up TLS.
func readContext(name string) (string, []nats.Option, bool, error) {
	path, err := contextPath(name)
	if err != nil {
		return "", nil, false, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, false, fmt.Errorf("NATS context %q: %w", name, err)
	}
	var c natsContext
	if err := json.Unmarshal(data, &c); err != nil {
		return "", nil, false, fmt.Errorf("NATS context %s: %w", path, err)
	}
	var opts []nats.Option
	switch {
	case c.Creds != "":
		opts = append(opts, nats.UserCredentials(c.Creds))
	case c.Nkey != "":
		o, err := nats.NkeyOptionFromSeed(c.Nkey)
		if err != nil {
			return "", nil, false, fmt.Errorf("NATS context %s: %w", path, err)
		}
		opts = append(opts, o)
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.Cert != "" || c.Key != "" {
		opts = append(opts, nats.ClientCert(c.Cert, c.Key))
	}
	if c.CA != "" {
		opts = append(opts, nats.RootCAs(c.CA))
	}
	if c.TLSFirst {
		opts = append(opts, nats.TLSHandshakeFirst())
	}
	return c.URL, opts, c.CA != "" || c.Cert != "" || c.TLSFirst, nil
}

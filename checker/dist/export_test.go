package dist

import "net"

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

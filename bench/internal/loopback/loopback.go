// Package loopback holds what the bench programs share about the loopback
// interface they run servers on.
package loopback

import "net"

// FreePort asks the kernel for a loopback port that was free a moment ago
// (127.0.0.1, TCP). Go listeners set SO_REUSEADDR, so the same port can
// serve a server's every restart (bench/soak).
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

package handlerstest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"testing"
)

// FreePort returns a loopback TCP port that is free now, for a server in another process (a
// PostgreSQL cluster, `parley serve`) that binds it later. It is taken below the kernel's ephemeral
// range (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default): a port from ":0" is in
// that range, and until the other process binds it (seconds, for a cluster's initdb; again after
// the cluster is stopped in an outage test) any outgoing connection on the machine may be given it
// as its local port, and the server then fails with "address already in use".
func FreePort(t testing.TB) int {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var lo, hi int
		if n, _ := fmt.Sscanf(string(b), "%d %d", &lo, &hi); n == 2 && lo > 2048 {
			low = lo
		}
	}
	const from = 20000 // above the usual fixed ports (PostgreSQL's private clusters use 54xxx)
	if low <= from+100 {
		t.Fatalf("the ephemeral port range starts at %d: no room below it for test servers", low)
	}
	for range 100 {
		port := from + rand.IntN(low-from)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			l.Close()
			return port
		}
	}
	t.Fatal("no free loopback port below the ephemeral range after 100 tries")
	return 0
}

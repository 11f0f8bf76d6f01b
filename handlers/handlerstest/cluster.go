package handlerstest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"parley/db"
)

// Cluster is a PostgreSQL cluster of its own for one test, which the test may stop and start
// again (a database outage). It runs Debian's binaries from /usr/lib/postgresql/*/bin in a
// temporary folder on a free loopback port, as the "postgres" user when the test runs as root
// (PostgreSQL refuses root), like db/localpg.sh. It is removed when the test ends.
type Cluster struct {
	// URL is the DSN of its migrated "parley" database.
	URL  string
	bin  string
	data string
	port int
	t    testing.TB
}

// NewCluster creates, starts and migrates a cluster (fsync off: nothing here must survive a crash
// of the machine).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Fatal("no /usr/lib/postgresql/*/bin/initdb: install Debian's postgresql (make test does)")
	}
	sort.Strings(bins)
	port := FreePort(t)
	dir, err := os.MkdirTemp("/var/tmp", "parley-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{bin: filepath.Dir(bins[len(bins)-1]), data: filepath.Join(dir, "pg"), port: port, t: t,
		URL: fmt.Sprintf("postgres://parley@127.0.0.1:%d/parley?sslmode=disable", port)}
	if os.Getuid() == 0 {
		if err := exec.Command("chown", "postgres", dir).Run(); err != nil {
			t.Fatalf("chown postgres %s: %v", dir, err)
		}
	}
	t.Cleanup(func() {
		_ = c.run("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop")
		os.RemoveAll(dir)
	})
	if err := c.run("initdb", "-D", c.data, "-U", "parley", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\nfsync = off\nmax_connections = 100\n", port)
	if err := c.run("sh", "-c", "cat >> "+filepath.Join(c.data, "postgresql.conf")+" <<'EOF'\n"+conf+"EOF"); err != nil {
		t.Fatal(err)
	}
	c.Start()
	admin := fmt.Sprintf("postgres://parley@127.0.0.1:%d/postgres?sslmode=disable", port)
	store, err := db.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.DB.Exec(`CREATE DATABASE parley`)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	store, err = db.Open(context.Background(), c.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.MigrateUp(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	return c
}

// Stop shuts the cluster down (fast: connections are cut, as in an outage) and waits for it.
func (c *Cluster) Stop() {
	c.t.Helper()
	if err := c.run("pg_ctl", "-D", c.data, "-m", "fast", "-w", "stop"); err != nil {
		c.t.Fatal(err)
	}
}

// Start starts the cluster and waits until it accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.run("pg_ctl", "-D", c.data, "-l", filepath.Join(c.data, "server.log"), "-w", "-t", "60", "start"); err != nil {
		c.t.Fatal(err)
	}
}

// run runs a PostgreSQL program (or sh) as the cluster's owner.
func (c *Cluster) run(name string, args ...string) error {
	if name != "sh" {
		name = filepath.Join(c.bin, name)
	}
	var cmd *exec.Cmd
	if os.Getuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	} else {
		cmd = exec.Command(name, args...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
	return nil
}

package handlerstest

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/db/dbtest"
)

// Process is Parley's own binary (cmd/parley, built for the test) serving a fresh database on a
// free local port in its own process, for benchmarks that measure what one instance costs (its
// RSS, its CPU) without the load generator sharing its heap. App has only URL set: use App.Client.
type Process struct {
	App *App
	Cmd *exec.Cmd
}

// StartProcess builds and starts `parley serve` with env (NAME=value) added to a quiet default
// environment, waits until /readyz answers 200, and stops it (SIGTERM) when the test ends.
func StartProcess(t testing.TB, env ...string) *Process {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "parley")
	build := exec.Command("go", "build", "-o", bin, "parley/cmd/parley")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/parley (run `make assets` first): %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbtest.URL(t), "PARLEY_ADDR="+addr,
		"PARLEY_PUBLIC_URL=http://"+addr, "PARLEY_LOG_LEVEL=error", "PARLEY_IMPROVE_TITLES=false")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(url + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("parley serve did not become ready within 30 s")
		}
	}
	return &Process{App: &App{URL: url}, Cmd: cmd}
}

// RSS is the process's resident set size in bytes (VmRSS of /proc/<pid>/status).
func (p *Process) RSS(t testing.TB) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "VmRSS:"); ok {
			var kB int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kB)
			return kB << 10
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

package handlerstest

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Binary builds cmd/parley once per test run into a temporary folder and returns its path: tests
// that kill an instance with SIGKILL need it in a process of its own.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		_, here, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(here), "..", "..")
		dir, err := os.MkdirTemp("", "parley-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "parley")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/parley")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/parley: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Process is `parley serve` running in a process of its own, on a free loopback port.
type Process struct {
	URL    string
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
}

// StartProcess runs `parley serve` on databaseURL with env (PARLEY_* settings, "KEY=value") and
// waits until /readyz answers 200 (at most 30 s). The process is killed when the test ends.
func StartProcess(t testing.TB, databaseURL string, env ...string) *Process {
	t.Helper()
	bin := Binary(t)
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	logFile, err := os.CreateTemp("", "parley-process-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+databaseURL, "PARLEY_ADDR="+addr,
		"PARLEY_PUBLIC_URL=http://"+addr, "PARLEY_LOG_LEVEL=warn", "PARLEY_SIGNIN_PER_MINUTE=1000",
		"PARLEY_MESSAGES_PER_MINUTE=1000")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{URL: "http://" + addr, cmd: cmd, log: logFile, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.Kill()
		logFile.Close()
		os.Remove(logFile.Name())
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(p.URL + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) || p.done() {
			out, _ := os.ReadFile(logFile.Name())
			t.Fatalf("parley serve did not become ready on %s: %v\n%s", addr, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// App is the process as an App, for Client (its Store and Server are nil).
func (p *Process) App() *App { return &App{URL: p.URL} }

// Kill ends the process with SIGKILL (no shutdown at all) and waits for it.
func (p *Process) Kill() {
	if !p.done() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	}
}

func (p *Process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Wait waits for the process to exit (at most timeout) and returns its exit code, or -1 when it
// is still running.
func (p *Process) Wait(timeout time.Duration) int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		return -1
	}
}

// Log returns what the process wrote to stdout and stderr so far.
func (p *Process) Log() string {
	out, _ := os.ReadFile(p.log.Name())
	return string(out)
}

// RSS is the process's resident set size in bytes (VmRSS of /proc/<pid>/status).
func (p *Process) RSS(t testing.TB) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
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

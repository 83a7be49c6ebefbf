package pgcluster

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// A cluster whose test process is gone is stopped and removed by the next Start; one whose test
// process lives (this one's) keeps running.
func TestStartSweepsClustersOfGoneTests(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers; skipped with -short")
	}
	owner, kill := standIn(t)
	orphan := start(t, owner)
	if !answers(orphan.Port()) {
		t.Fatal("the cluster does not answer before its test process is gone")
	}
	kill()
	mine := Start(t)
	if answers(orphan.Port()) {
		t.Error("the cluster of a gone test process still answers")
	}
	if _, err := os.Stat(filepath.Dir(orphan.dataDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder of a gone test process's cluster: %v", err)
	}
	if !answers(mine.Port()) {
		t.Error("the sweep stopped the cluster of a live test process")
	}
}

// A folder of a gone test process whose postmaster.pid names a process working elsewhere (a
// recycled id: here this test's own process) is left as it is, and the process is not signalled.
func TestSweepLeavesRecycledProcessIDs(t *testing.T) {
	owner, kill := standIn(t)
	kill()
	root, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(owner)+"-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	pidFile := filepath.Join(root, "data", "postmaster.pid")
	if err := os.Mkdir(filepath.Dir(pidFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"+filepath.Dir(pidFile)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// pg_ctl, were it run, would fail on this folder: the programs are never reached.
	sweep(t, "/nonexistent", nil)
	if _, err := os.Stat(pidFile); err != nil {
		t.Errorf("the sweep removed a folder whose server it could not vouch for: %v", err)
	}
}

// standIn starts a process that stands for a test process and returns its id, and kill, which
// ends it and waits until it is gone. Until then no sweep touches the clusters it owns.
func standIn(t *testing.T) (pid int, kill func()) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill = sync.OnceFunc(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	t.Cleanup(kill)
	return cmd.Process.Pid, kill
}

// answers reports whether a server accepts connections on port of 127.0.0.1.
func answers(port int) bool {
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

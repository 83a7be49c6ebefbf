// Package pgcluster starts a private PostgreSQL cluster for a test: its own data folder in a
// temporary folder of its own, its own port on loopback and its own socket folder, so a test may
// stop, crash and restart it without touching any shared server. It is for tests only.
//
// It drives the server with its own programs (initdb, pg_ctl, createdb) found on PATH or under
// /usr/lib/postgresql/*/bin, and imports no database driver: only the store and the queue may.
// Without the programs Start skips the test, or fails it under make test (see internal/testenv).
// PostgreSQL refuses to run as root, so when the test runs as root every server command runs as
// the "postgres" OS user (through runuser) and the cluster's folder is handed to that user.
//
// A test process killed from outside leaves its servers running, since PostgreSQL has no
// parent-death option: Start first stops and removes the clusters of test processes that are
// gone, and nothing else.
package pgcluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// Cluster is one private PostgreSQL server. Its methods fail the test on error.
type Cluster struct {
	bin     string   // folder holding initdb, pg_ctl and psql
	dataDir string   // the cluster's files
	sockDir string   // the Unix socket folder
	logFile string   // the server's log, shown when it fails to start
	asUser  []string // the command prefix that runs a server command as its owner
	port    int
	running bool
}

// Stop modes: Fast disconnects clients (they see admin_shutdown, 57P01) and checkpoints;
// Immediate kills the server processes as a crash would, and the next start recovers from the WAL.
const (
	Fast      = "fast"
	Immediate = "immediate"
)

// Start creates a cluster with trust authentication for the user "postgres" and starts it on a
// free port of 127.0.0.1. It is stopped (immediately) and removed when the test ends. Without
// PostgreSQL's server programs, testenv.Need decides: a skip, or a failure under make test.
func Start(t testing.TB) *Cluster {
	t.Helper()
	return start(t, os.Getpid())
}

// dirPrefix begins the name of every cluster's folder in the temporary directory; the id of the
// test process that made it follows, then a dash.
const dirPrefix = "boxwatch-pgcluster-"

// start is Start for a cluster whose folder names owner as the test process it belongs to.
func start(t testing.TB, owner int) *Cluster {
	t.Helper()
	bin := serverPrograms(t)
	asUser, err := serverUser()
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	sweep(t, bin, asUser)
	root, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(owner)+"-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(root); err != nil {
			t.Errorf("pgcluster: %v", err)
		}
	})
	c := &Cluster{bin: bin, dataDir: filepath.Join(root, "data"), sockDir: filepath.Join(root, "sock"),
		logFile: filepath.Join(root, "server.log"), asUser: asUser}
	if err := os.Mkdir(c.sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if len(asUser) > 0 {
		if err := handToPostgres(root, c.sockDir); err != nil {
			t.Fatalf("pgcluster: running as root: %v", err)
		}
	}
	c.run(t, "initdb", "-D", c.dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	// fsync=off only matters when the machine itself crashes; a server killed with Immediate
	// still loses nothing committed, because each commit's WAL reaches the kernel before it is
	// acknowledged (synchronous_commit stays on).
	conf := "\nlisten_addresses = '127.0.0.1'\n" +
		"unix_socket_directories = '" + c.sockDir + "'\n" +
		"fsync = off\nfull_page_writes = off\nsynchronous_commit = on\n" +
		"max_connections = 100\nshared_buffers = 32MB\nlogging_collector = off\n"
	f, err := os.OpenFile(filepath.Join(c.dataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.running {
			c.stop(Immediate)
		}
	})
	// Another process may take the free port between our check and the server's bind: try again
	// on a new one.
	for attempt := 1; ; attempt++ {
		c.port = freePort(t)
		err := c.start()
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatalf("pgcluster: %v", err)
		}
	}
	return c
}

// Port is the cluster's TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// URL is the address of database db for the user "postgres", over TCP.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// CreateDatabase creates database name in the cluster.
func (c *Cluster) CreateDatabase(t testing.TB, name string) {
	t.Helper()
	c.run(t, "createdb", "-h", c.sockDir, "-p", strconv.Itoa(c.port), "-U", "postgres", name)
}

// Stop stops the server in mode (Fast or Immediate) and waits until it is down.
func (c *Cluster) Stop(t testing.TB, mode string) {
	t.Helper()
	if err := c.stop(mode); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
}

// Restart starts a stopped server again, on the same port and data, and waits until it accepts
// connections.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	if err := c.start(); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
}

func (c *Cluster) start() error {
	out, err := c.command("pg_ctl", "start", "-D", c.dataDir, "-l", c.logFile, "-w", "-t", "60",
		"-o", "-p "+strconv.Itoa(c.port)).CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(c.logFile)
		return fmt.Errorf("pg_ctl start on port %d: %v\n%s\nserver log:\n%s", c.port, err, out, log)
	}
	c.running = true
	return nil
}

func (c *Cluster) stop(mode string) error {
	out, err := c.command("pg_ctl", "stop", "-D", c.dataDir, "-m", mode, "-w", "-t", "60").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %v\n%s", mode, err, out)
	}
	c.running = false
	return nil
}

// run runs one of the server's programs and fails the test when it fails.
func (c *Cluster) run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("pgcluster: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(c.asUser), filepath.Join(c.bin, name))
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Dir = os.TempDir() // runuser keeps the directory, which the postgres user may not enter
	return cmd
}

// serverUser returns the command prefix that runs a server command as the postgres OS user when
// the test runs as root, which initdb and pg_ctl refuse; nil otherwise.
func serverUser() ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if _, err := user.Lookup("postgres"); err != nil {
		return nil, fmt.Errorf("initdb refuses to run as root and there is no postgres user to run it as: %w", err)
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, fmt.Errorf("initdb refuses to run as root and runuser is missing: %w", err)
	}
	return []string{runuser, "-u", "postgres", "--"}, nil
}

// handToPostgres gives the folders to the postgres OS user.
func handToPostgres(dirs ...string) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range dirs {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// serverPrograms returns the folder of initdb and pg_ctl: pg_ctl's on PATH, else the newest
// Debian install's.
func serverPrograms(t testing.TB) string {
	t.Helper()
	pgCtl := testenv.Need(t, "pg_ctl", "/usr/lib/postgresql/*/bin")
	if real, err := filepath.EvalSymlinks(pgCtl); err == nil {
		pgCtl = real
	}
	bin := filepath.Dir(pgCtl)
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		testenv.Missing(t, "initdb", "is not beside "+pgCtl)
	}
	return bin
}

// sweep stops and removes the clusters that test processes killed from outside left behind: the
// folders under this package's name whose test process is gone. It stops a server only when the
// process its postmaster.pid names works in that folder's data (its current directory), so a
// recycled process id is never signalled, and it touches no server outside these folders (the
// shared one on 5432 included). What it cannot clean is logged and left.
func sweep(t testing.TB, bin string, asUser []string) {
	t.Helper()
	roots, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, root := range roots {
		owner, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(root), dirPrefix), "-", 2)[0])
		if err != nil || owner <= 0 || processExists(owner) {
			continue
		}
		c := &Cluster{bin: bin, dataDir: filepath.Join(root, "data"), asUser: asUser}
		switch serving, err := c.serving(); {
		case err != nil:
			t.Logf("pgcluster: leaving %s, whose test process %d is gone: %v", root, owner, err)
			continue
		case serving:
			if err := c.stop(Immediate); err != nil {
				t.Logf("pgcluster: leaving %s, whose test process %d is gone: %v", root, owner, err)
				continue
			}
		}
		if err := os.RemoveAll(root); err != nil {
			t.Logf("pgcluster: %v", err)
			continue
		}
		t.Logf("pgcluster: removed %s, the cluster of test process %d, which is gone", root, owner)
	}
}

// serving reports whether the cluster's server runs: its postmaster.pid names a process whose
// current directory is the data folder. It is an error when that process exists but works
// elsewhere, or cannot be inspected.
func (c *Cluster) serving() (bool, error) {
	raw, err := os.ReadFile(filepath.Join(c.dataDir, "postmaster.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// The process id, negated when a single-user server wrote it (initdb's bootstrap does).
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	pid = max(pid, -pid)
	if err != nil || pid == 0 {
		return false, fmt.Errorf("postmaster.pid does not begin with a process id: %q", raw)
	}
	if !processExists(pid) {
		return false, nil
	}
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return false, fmt.Errorf("process %d of postmaster.pid: %v", pid, err)
	}
	data, err := filepath.EvalSymlinks(c.dataDir)
	if err != nil {
		return false, err
	}
	if cwd != data {
		return false, fmt.Errorf("process %d of postmaster.pid works in %s, not here", pid, cwd)
	}
	return true, nil
}

// processExists reports whether a process has the id pid.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// freePort returns a TCP port of 127.0.0.1 nobody listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Package pgcluster starts a private PostgreSQL cluster for a test: its own data folder in the
// test's temporary directory, its own port on loopback and its own socket folder, so a test may stop,
// crash and restart it without touching any shared server. It is for tests only.
//
// It drives the server with its own programs (initdb, pg_ctl, createdb) found on PATH or under
// /usr/lib/postgresql/*/bin, and imports no database driver: only the store and the queue may.
// Without the programs Start skips the test. PostgreSQL refuses to run as root, so when the test
// runs as root every server command runs as the "postgres" OS user (through runuser) and the
// test's folder is handed to that user.
package pgcluster

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
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
// free port of 127.0.0.1. It is stopped (immediately) and removed when the test ends. Start
// skips the test when no PostgreSQL server binaries are installed.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := findBin()
	if bin == "" {
		t.Skip("pgcluster: no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql/*/bin; install postgresql to run this test")
	}
	root := t.TempDir()
	c := &Cluster{bin: bin, dataDir: filepath.Join(root, "data"), sockDir: filepath.Join(root, "sock"), logFile: filepath.Join(root, "server.log")}
	if err := os.Mkdir(c.sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := c.runAsPostgres(root); err != nil {
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

// runAsPostgres hands root, the test's folder, to the postgres OS user, lets that user reach
// it, and makes every server command run as that user.
func (c *Cluster) runAsPostgres(root string) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("initdb refuses to run as root and there is no postgres user to run it as: %w", err)
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return fmt.Errorf("initdb refuses to run as root and runuser is missing: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, p := range []string{root, c.sockDir} {
		if err := os.Chown(p, uid, gid); err != nil {
			return err
		}
	}
	// t.TempDir makes two folders private to root (0700), the test's and this call's: let others
	// pass through the first; the second, root, is the postgres user's now.
	if err := os.Chmod(filepath.Dir(root), 0o711); err != nil {
		return err
	}
	c.asUser = []string{runuser, "-u", "postgres", "--"}
	return nil
}

// findBin returns the folder of initdb and pg_ctl: PATH first, then the newest Debian install.
func findBin() string {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "initdb")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
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

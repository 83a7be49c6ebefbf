// Package replicas runs several "boxwatch serve" processes on one PostgreSQL database behind
// HAProxy, as production would, so that tests can kill and restart them under load. It builds the
// binary, generates the load balancer's configuration, and stops every process it started when
// the test ends, failed or not. With Options.NoBalancer it runs one process, on SQLite too, with
// no balancer. It must not be imported by the service itself.
package replicas

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/internal/testenv"
)

// HAProxyEnv names the variable that may hold the path of the haproxy binary (make test sets it
// from scripts/haproxy.sh); unset, haproxy is looked up on PATH.
const HAProxyEnv = "BOXWATCH_TEST_HAPROXY"

// Account is the name of the account Start creates, with every feature.
const Account = "load"

// Options configures a cluster.
type Options struct {
	// Replicas is how many serve processes run (at least 1).
	Replicas int
	// DSN is the PostgreSQL database they share (storetest.Postgres.DSN gives a fresh schema).
	DSN string
	// Flags are added to every replica's serve command, after the harness's own.
	Flags []string
	// NoBalancer, with one replica, leaves HAProxy out: clients talk to the replica itself (a
	// single node, as on SQLite, which DSN may then name as a file).
	NoBalancer bool
}

// Cluster is N replicas on one database behind one HAProxy address.
type Cluster struct {
	// URL is the load balancer's address, where clients send every request.
	URL string
	// Key is an API key of the account named Account.
	Key string

	t        testing.TB
	bin, dsn string
	flags    []string
	dir      string
	replicas []*Replica
	lb       *proc
	statsURL string
}

// Replica is one serve process; its addresses stay the same across restarts, so the load
// balancer's configuration holds.
type Replica struct {
	Name             string // as the load balancer knows it: r0, r1, …
	Addr, AdminAddr  string
	proc             *proc
	starts           int
	logMu            sync.Mutex
	previousLogLines []string // the lines of earlier runs, for the failure report
}

// Start migrates the database, creates the account and its key, starts the replicas and the load
// balancer, and waits until the balancer reports every replica up. Everything stops when the test
// ends; on failure the tail of every process's log is written to the test log.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	if o.Replicas < 1 {
		t.Fatalf("replicas.Start: %d replicas", o.Replicas)
	}
	if o.NoBalancer && o.Replicas != 1 {
		t.Fatalf("replicas.Start: no balancer in front of %d replicas", o.Replicas)
	}
	var haproxy string
	if !o.NoBalancer {
		haproxy = HAProxy(t)
	}
	c := &Cluster{t: t, bin: Binary(t), dsn: o.DSN, flags: o.Flags, dir: t.TempDir()}
	t.Cleanup(c.stop)

	c.admin("migrate")
	c.admin("account", "create", Account, "--feature", "map")
	out := c.admin("apikey", "create", Account)
	m := regexp.MustCompile(`(?m)^(bw_\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("apikey create printed no key:\n%s", out)
	}
	c.Key = m[1]

	ports := freePorts(t, 2*o.Replicas+2)
	for i := range o.Replicas {
		c.replicas = append(c.replicas, &Replica{Name: fmt.Sprintf("r%d", i),
			Addr: ports[2*i], AdminAddr: ports[2*i+1]})
	}
	for i := range c.replicas {
		c.Start(i)
	}
	if o.NoBalancer {
		c.URL = "http://" + c.replicas[0].Addr
		return c
	}
	front, stats := ports[2*o.Replicas], ports[2*o.Replicas+1]
	c.URL, c.statsURL = "http://"+front, "http://"+stats+"/stats;csv"
	cfg := filepath.Join(c.dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(HAProxyConfig(front, stats, c.backends())), 0o644); err != nil {
		t.Fatal(err)
	}
	c.lb = startProc(t, "haproxy", haproxy, "-db", "-f", cfg)
	for _, r := range c.replicas {
		c.WaitBalancer(r.Name, "UP")
	}
	return c
}

// Replicas returns the replicas, in the order of Options.Replicas.
func (c *Cluster) Replicas() []*Replica { return c.replicas }

func (c *Cluster) backends() []string {
	var list []string
	for _, r := range c.replicas {
		list = append(list, r.Name+" "+r.Addr)
	}
	return list
}

// admin runs a one-off boxwatch command against the database and returns its output.
func (c *Cluster) admin(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(args, "--db", c.dsn)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("boxwatch %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Start starts replica i (again, after Kill) and waits until it answers /readyz.
func (c *Cluster) Start(i int) {
	c.t.Helper()
	r := c.replicas[i]
	if r.proc != nil && r.proc.running() {
		c.t.Fatalf("replica %s is already running", r.Name)
	}
	if r.proc != nil {
		r.logMu.Lock()
		r.previousLogLines = append(r.previousLogLines, fmt.Sprintf("--- %s run %d ended: %s", r.Name, r.starts, r.proc.exit()))
		r.previousLogLines = append(r.previousLogLines, r.proc.lines()...)
		r.logMu.Unlock()
	}
	r.starts++
	args := append([]string{"serve", "--db", c.dsn, "--addr", r.Addr, "--admin-addr", r.AdminAddr, "--sim",
		"--webhook-allow-private"}, c.flags...)
	r.proc = startProc(c.t, r.Name, c.bin, args...)
	deadline := time.Now().Add(time.Minute)
	for !ready("http://" + r.Addr + "/readyz") {
		if !r.proc.running() {
			c.t.Fatalf("replica %s exited while starting (%s):\n%s", r.Name, r.proc.exit(), strings.Join(r.proc.lines(), "\n"))
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("replica %s did not answer /readyz within a minute", r.Name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends replica i with SIGKILL, as a crash or an OOM kill would: no shutdown code runs.
func (c *Cluster) Kill(i int) { c.replicas[i].proc.kill() }

// Running reports whether replica i's process is alive.
func (c *Cluster) Running(i int) bool { return c.replicas[i].proc.running() }

// RSS returns replica i's resident memory in kB, or 0 when it is not running.
func (c *Cluster) RSS(i int) int {
	p := c.replicas[i].proc
	if !p.running() {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int
			fmt.Sscan(rest, &kb)
			return kb
		}
	}
	return 0
}

// LocalPorts returns the local ports of replica i's TCP connections (read from /proc), so that a
// server on loopback can tell which of its clients is that replica; empty when it is not running.
func (c *Cluster) LocalPorts(i int) map[int]bool {
	ports := map[int]bool{}
	p := c.replicas[i].proc
	if !p.running() {
		return ports
	}
	pid := p.cmd.Process.Pid
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	for _, table := range []string{"tcp", "tcp6"} {
		raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		for line := range strings.Lines(string(raw)) {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) < 10 || !inodes[f[9]] {
				continue
			}
			_, port, ok := strings.Cut(f[1], ":")
			if n, err := strconv.ParseInt(port, 16, 32); ok && err == nil {
				ports[int(n)] = true
			}
		}
	}
	return ports
}

// CPU returns the processor time replica i's current process has used (user and system), or 0
// when it is not running.
func (c *Cluster) CPU(i int) time.Duration {
	p := c.replicas[i].proc
	if !p.running() {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name, in brackets, may hold spaces: the fields are counted after it.
	_, rest, ok := strings.Cut(string(stat), ") ")
	if !ok {
		return 0
	}
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15 of proc(5)
		var n int64
		fmt.Sscan(f, &n)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's times: 100 on every Linux the harness runs on.
const clockTicks = 100

// Run numbers replica i's current process: 1 for its first start, one more after each restart.
func (c *Cluster) Run(i int) int { return c.replicas[i].starts }

// Log returns the lines replica i has written to stderr in its current run.
func (c *Cluster) Log(i int) []string { return c.replicas[i].proc.lines() }

// WaitBalancer waits until HAProxy reports the named replica's state ("UP" or "DOWN").
func (c *Cluster) WaitBalancer(name, state string) {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := c.BalancerState(name)
		if err == nil && got == state {
			return
		}
		if !c.lb.running() {
			c.t.Fatalf("haproxy exited (%s):\n%s", c.lb.exit(), strings.Join(c.lb.lines(), "\n"))
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("haproxy did not report %s %s within a minute (last: %q, %v)", name, state, got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// BalancerState returns HAProxy's status of the named replica, such as "UP", "DOWN" or
// "UP 1/2" while a check is in transition.
func (c *Cluster) BalancerState(name string) (string, error) {
	res, err := http.Get(c.statsURL)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	rows, err := csv.NewReader(res.Body).ReadAll()
	if err != nil || len(rows) == 0 {
		return "", fmt.Errorf("haproxy stats: %v", err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimPrefix(h, "# ")] = i
	}
	for _, row := range rows[1:] {
		if row[col["pxname"]] == "boxwatch" && row[col["svname"]] == name {
			return row[col["status"]], nil
		}
	}
	return "", fmt.Errorf("haproxy stats list no server %s", name)
}

// stop kills every process, reporting their logs if the test failed.
func (c *Cluster) stop() {
	if c.lb != nil {
		c.lb.kill()
	}
	for _, r := range c.replicas {
		if r.proc != nil {
			r.proc.kill()
		}
	}
	if !c.t.Failed() {
		return
	}
	const tail = 100
	for _, r := range c.replicas {
		if r.proc == nil {
			continue
		}
		var lines []string
		for _, line := range append(r.previousLogLines, r.proc.lines()...) {
			if !answered.MatchString(line) {
				lines = append(lines, line)
			}
		}
		c.t.Logf("=== log of replica %s (%d runs; the last %d lines but those of answered requests):\n%s", r.Name, r.starts, min(tail, len(lines)),
			strings.Join(lines[max(0, len(lines)-tail):], "\n"))
	}
	if c.lb != nil {
		c.t.Logf("=== log of haproxy:\n%s", strings.Join(c.lb.lines(), "\n"))
	}
}

// answered matches the log line of a request answered with a 2xx, 3xx or 4xx: too many to report.
var answered = regexp.MustCompile(`"msg":"request".*"status":[234]`)

func ready(url string) bool {
	client := http.Client{Timeout: 2 * time.Second}
	res, err := client.Get(url)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// HAProxyConfig is the load balancer's configuration for the replicas ("name host:port" each),
// listening on front, with a statistics page on stats. docs/deploy.md shows the same with TLS.
func HAProxyConfig(front, stats string, replicas []string) string {
	var servers strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&servers, "    server %s check\n", r)
	}
	return fmt.Sprintf(haproxyTemplate, front, stats, servers.String())
}

// Only a request that never reached a replica is safe to send to another whatever its method; a
// GET or HEAD may also be sent again when its replica died before answering. A POST or PATCH
// whose replica died mid-request may have been committed, so the client gets the 502 and decides.
const haproxyTemplate = `global
    log stderr format raw local0 notice
    maxconn 4096

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 65s
    timeout server 65s
    timeout http-request 15s
    timeout http-keep-alive 60s
    timeout queue 10s
    timeout check 5s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend api
    bind %s
    default_backend boxwatch

frontend stats
    bind %s
    stats enable
    stats uri /stats
    stats refresh 5s

backend boxwatch
    balance roundrobin
    http-request disable-l7-retry unless METH_GET || METH_HEAD
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fastinter 250ms downinter 500ms fall 3 rise 2 observe layer4 error-limit 1 on-error fastinter
%s`

// HAProxy returns the path of haproxy: HAProxyEnv's value, else the one on PATH. Without one,
// testenv.Need decides: a skip, or a failure under make test.
func HAProxy(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(HAProxyEnv); p != "" {
		return p
	}
	return testenv.Need(t, "haproxy")
}

// freePorts returns n distinct loopback addresses nothing listens on now.
func freePorts(t testing.TB, n int) []string {
	t.Helper()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var addrs []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs
}

var build struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// Binary builds boxwatch once per test binary and returns its path; Main removes it.
// BOXWATCH_REPLICAS_BINARY names a binary to run instead, built elsewhere: an older commit's,
// to measure it under this harness.
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("BOXWATCH_REPLICAS_BINARY"); bin != "" {
		return bin
	}
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "boxwatch-replicas-")
		if build.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(build.dir, "boxwatch"), "github.com/boxwatch/boxwatch/cmd/boxwatch")
		build.out, build.err = cmd.CombinedOutput()
	})
	if build.err != nil {
		t.Fatalf("go build: %v\n%s", build.err, build.out)
	}
	return filepath.Join(build.dir, "boxwatch")
}

// Main runs the tests of a package that uses Binary, then removes the binary.
func Main(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// proc is a child process in its own process group, whose stdout and stderr are kept line by
// line. It is killed with its whole group, and with the test binary if that dies first.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's, once done is closed

	mu  sync.Mutex
	log []string
}

func startProc(t testing.TB, name, bin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go p.record(pr)
	go func() {
		p.err = cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p
}

func (p *proc) record(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.log = append(p.log, sc.Text())
		p.mu.Unlock()
	}
	io.Copy(io.Discard, r)
}

func (p *proc) lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// exit describes how the process ended.
func (p *proc) exit() string {
	if p.running() {
		return "running"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.String()
	}
	return "exit status 0"
}

// kill sends SIGKILL to the process's group and waits for the process to end.
func (p *proc) kill() {
	if p.running() {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}

package pgcluster

import (
	"net"
	"strconv"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the cluster and can freeze them, as a network partition
// would: a frozen proxy accepts and keeps every connection but passes no byte either way, so a
// client waits on its own deadlines instead of seeing a refusal.
type Proxy struct {
	ln     net.Listener
	target string
	frozen sync.RWMutex // held for writing while frozen; every forwarded write holds it for reading

	mu       sync.Mutex
	conns    []net.Conn
	isFrozen bool
	wg       sync.WaitGroup
}

// Proxy starts a proxy to the cluster on a free port of 127.0.0.1; it is closed when the test
// ends.
func (c *Cluster) Proxy(t testing.TB) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// URL is the address of database db through the proxy.
func (p *Proxy) URL(db string) string {
	return "postgres://postgres@" + p.ln.Addr().String() + "/" + db + "?sslmode=disable"
}

// Freeze stops every byte between clients and the server until Thaw.
func (p *Proxy) Freeze() {
	p.frozen.Lock()
	p.mu.Lock()
	p.isFrozen = true
	p.mu.Unlock()
}

// Thaw lets bytes through again.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	p.isFrozen = false
	p.mu.Unlock()
	p.frozen.Unlock()
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(server, client) })
		p.wg.Go(func() { p.pipe(client, server) })
	}
}

// pipe copies from src to dst, holding each write back while the proxy is frozen.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.frozen.RLock()
			_, werr := dst.Write(buf[:n])
			p.frozen.RUnlock()
			if werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	if p.isFrozen { // a test that failed while frozen: let the pipes see their closed connections
		p.isFrozen = false
		p.frozen.Unlock()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

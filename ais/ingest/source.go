package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"time"
)

// maxLine bounds one NMEA line: a sentence is at most 82 characters, a tag block adds a few
// dozen; longer lines are garbage and are skipped whole.
const maxLine = 1024

// Reconnection backoff of a TCP source: the first wait, and the longest.
const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 30 * time.Second
)

// source is one feed. open prepares it (a UDP source listens at once, so Start reports a port
// in use) and returns the function that reads it until ctx ends.
type source interface {
	open(ctx context.Context, in *Ingest) (run func(), err error)
	String() string
}

// CheckSource reports whether raw is a source Config.Sources accepts, and why not.
func CheckSource(raw string) error {
	_, err := parseSource(raw)
	return err
}

// parseSource reads a source URL.
func parseSource(raw string) (source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("ais source %q: %w", raw, err)
	}
	switch u.Scheme {
	case "tcp", "udp":
		if _, _, err := net.SplitHostPort(u.Host); err != nil || u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("ais source %q: want %s://host:port", raw, u.Scheme)
		}
		if u.Scheme == "tcp" {
			return tcpSource{addr: u.Host}, nil
		}
		return udpSource{addr: u.Host}, nil
	case "file":
		if u.Host != "" || u.Path == "" {
			return nil, fmt.Errorf("ais source %q: want file:///absolute/path", raw)
		}
		return fileSource{path: u.Path}, nil
	default:
		return nil, fmt.Errorf("ais source %q: the scheme must be tcp, udp or file", raw)
	}
}

// Feed reads NMEA lines from r until it ends or ctx does, as one source (its own reassembly of
// multi-sentence messages). A file source is Feed over the file.
func (in *Ingest) Feed(ctx context.Context, r io.Reader) error {
	return in.feed(ctx, r, nil)
}

// feed is Feed counting in src's stats too (nil counts only the totals).
func (in *Ingest) feed(ctx context.Context, r io.Reader, src *SourceStats) error {
	f := &feeder{in: in, src: src}
	br := bufio.NewReaderSize(r, 64<<10)
	for ctx.Err() == nil {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			// Far longer than any sentence: garbage, skipped to its end.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			f.malformed()
		case len(line) > maxLine:
			f.malformed()
		case len(line) > 0:
			f.line(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return ctx.Err()
}

type fileSource struct{ path string }

func (s fileSource) String() string { return "file://" + s.path }

func (s fileSource) open(ctx context.Context, in *Ingest) (func(), error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, fmt.Errorf("ais source %s: %w", s, err)
	}
	return func() {
		defer f.Close()
		before := in.Stats()
		if err := in.feed(ctx, f, in.sourceStats(s)); err != nil && ctx.Err() == nil {
			in.cfg.Logger.Warn("ais file source", "source", s.String(), "error", err.Error())
			return
		}
		after := in.Stats()
		in.cfg.Logger.Info("ais file replayed", "source", s.String(), "lines", after.Lines-before.Lines)
	}, nil
}

// tcpSource is a client of a feed that serves NMEA lines over TCP; it reconnects with backoff
// whenever the connection drops or cannot be made.
type tcpSource struct{ addr string }

func (s tcpSource) String() string { return "tcp://" + s.addr }

func (s tcpSource) open(ctx context.Context, in *Ingest) (func(), error) {
	return func() {
		wait := firstBackoff
		for first := true; ctx.Err() == nil; first = false {
			var d net.Dialer
			dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			conn, err := d.DialContext(dialCtx, "tcp", s.addr)
			cancel()
			if err == nil {
				if !first {
					in.mu.Lock()
					in.stats.Reconnects++
					in.sourceStats(s).Reconnects++
					in.mu.Unlock()
				}
				in.cfg.Logger.Info("ais feed connected", "source", s.String())
				stop := context.AfterFunc(ctx, func() { conn.Close() })
				err = in.feed(ctx, conn, in.sourceStats(s))
				stop()
				conn.Close()
				wait = firstBackoff // it was up: the next try comes soon
				if err == nil {
					err = io.EOF
				}
			}
			if ctx.Err() != nil {
				return
			}
			in.cfg.Logger.Warn("ais feed down, reconnecting", "source", s.String(), "error", err.Error(), "in", wait.String())
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, maxBackoff)
		}
	}, nil
}

// udpSource listens for datagrams of NMEA lines, as receivers such as AIS-catcher send them.
type udpSource struct{ addr string }

func (s udpSource) String() string { return "udp://" + s.addr }

func (s udpSource) open(ctx context.Context, in *Ingest) (func(), error) {
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("ais source %s: %w", s, err)
	}
	in.cfg.Logger.Info("ais listening", "source", s.String(), "addr", pc.LocalAddr().String())
	in.mu.Lock()
	in.listening = append(in.listening, pc.LocalAddr())
	in.mu.Unlock()
	return func() {
		stop := context.AfterFunc(ctx, func() { pc.Close() })
		defer stop()
		defer pc.Close()
		f := &feeder{in: in, src: in.sourceStats(s)}
		buf := make([]byte, 64<<10)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				if ctx.Err() == nil {
					in.cfg.Logger.Warn("ais udp source stopped", "source", s.String(), "error", err.Error())
				}
				return
			}
			for line := range bytes.SplitSeq(buf[:n], []byte{'\n'}) {
				switch {
				case len(line) > maxLine:
					f.malformed()
				case len(bytes.TrimSpace(line)) > 0:
					f.line(line)
				}
			}
		}
	}, nil
}

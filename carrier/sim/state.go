package sim

import (
	"context"
	"sync"
	"time"
)

// State is what the simulated world remembers about the numbers it was asked about. It must
// survive restarts and be shared by every replica that serves the network, so that a journey
// keeps its place and the unreachable-carrier numbers count their attempts once; the service
// keeps it in its database (store.DB implements State).
//
// Keys are "<SCAC>/<NUMBER>" with the carrier's primary SCAC and the number in upper case, at
// most 40 bytes. Both methods must be safe for concurrent use.
type State interface {
	// FirstSeen returns when key was first looked up, recording now as that time if it never
	// was. Concurrent first calls must agree on one time.
	FirstSeen(ctx context.Context, key string, now time.Time) (time.Time, error)
	// Increment counts one more lookup of key and returns the count including it: 1 the first time.
	Increment(ctx context.Context, key string) (int, error)
}

// MemoryState is a State held in memory, for tests and single-process runs: it is lost on
// restart. The zero value is ready to use.
type MemoryState struct {
	mu        sync.Mutex
	firstSeen map[string]time.Time
	attempts  map[string]int
}

// NewMemoryState returns an empty MemoryState.
func NewMemoryState() *MemoryState { return &MemoryState{} }

// FirstSeen implements State.
func (s *MemoryState) FirstSeen(_ context.Context, key string, now time.Time) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.firstSeen[key]; ok {
		return t, nil
	}
	if s.firstSeen == nil {
		s.firstSeen = map[string]time.Time{}
	}
	s.firstSeen[key] = now
	return now, nil
}

// Increment implements State.
func (s *MemoryState) Increment(_ context.Context, key string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attempts == nil {
		s.attempts = map[string]int{}
	}
	s.attempts[key]++
	return s.attempts[key], nil
}

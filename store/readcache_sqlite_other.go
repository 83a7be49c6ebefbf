//go:build !unix

package store

import "errors"

// mapHeader fails where the store cannot map the index: the read cache stays off on SQLite.
func mapHeader(string) ([]byte, error) {
	return nil, errors.New("the read cache on SQLite needs a Unix system to watch the write-ahead log")
}

func unmapHeader([]byte) {}

//go:build unix

package store

import "syscall"

// mapHeader maps the header of the write-ahead log's index at path, read-only and shared: SQLite
// maps the same file, so its writes show here as they happen.
func mapHeader(path string) ([]byte, error) {
	f, err := openHeader(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return syscall.Mmap(int(f.Fd()), 0, shmHeaderBytes, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapHeader(b []byte) { syscall.Munmap(b) }

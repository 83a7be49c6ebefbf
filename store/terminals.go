package store

import (
	"context"
	"strings"

	"github.com/boxwatch/boxwatch"
)

const terminalColumns = `id, locode, smdg_code, name, created_at, updated_at`

func scanTerminal(r row) (boxwatch.Terminal, error) {
	var t boxwatch.Terminal
	err := r.Scan(nullString{&t.ID}, &t.LOCODE, &t.SMDGCode, &t.Name, timeCol{&t.CreatedAt}, timeCol{&t.UpdatedAt})
	return t, err
}

// SaveTerminal records a terminal a carrier reported; a known one keeps its name unless the new
// report names it.
func (tx *txn) SaveTerminal(ctx context.Context, t boxwatch.Terminal) error {
	_, err := tx.c.exec(ctx, "INSERT INTO terminals ("+terminalColumns+`) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE terminals.name END,
		updated_at = CASE WHEN excluded.name <> '' AND excluded.name <> terminals.name THEN excluded.updated_at ELSE terminals.updated_at END`,
		t.ID, t.LOCODE, t.SMDGCode, t.Name, tx.db.ts(t.CreatedAt), tx.db.ts(t.UpdatedAt))
	return tx.db.internal("save terminal", err)
}

// Terminal returns a terminal by id, or ErrNotFound.
func (db *DB) Terminal(ctx context.Context, id string) (boxwatch.Terminal, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Terminal{}, boxwatch.ErrNotFound
	}
	t, err := scanTerminal(db.read.queryRow(ctx, "SELECT "+terminalColumns+" FROM terminals WHERE id = ?", strings.ToLower(id)))
	return t, db.lookupErr("terminal", err)
}

// TerminalsAtPorts returns the terminals known at each of the ports, keyed by UN/LOCODE, each list
// by SMDG code, in one statement. A port without terminals is absent.
func (db *DB) TerminalsAtPorts(ctx context.Context, locodes []string) (map[string][]boxwatch.Terminal, error) {
	out := map[string][]boxwatch.Terminal{}
	seen := map[string]bool{}
	var args []any
	for _, l := range locodes {
		if l != "" && !seen[l] {
			seen[l] = true
			args = append(args, l)
		}
	}
	if len(args) == 0 {
		return out, nil
	}
	list, err := batch(ctx, db, "terminals at ports", "SELECT "+terminalColumns+" FROM terminals WHERE locode "+in(len(args))+
		" ORDER BY locode, smdg_code", pad(args), scanTerminal)
	for _, t := range list {
		out[t.LOCODE] = append(out[t.LOCODE], t)
	}
	return out, err
}

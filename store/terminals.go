package store

import (
	"context"
	"errors"
	"strings"

	"github.com/boxwatch/boxwatch"
)

const terminalColumns = `id, locode, smdg_code, name, created_at, updated_at, firms_code, nickname, street, city, state,
	state_abbr, zip, country, listed`

func scanTerminal(r row) (boxwatch.Terminal, error) {
	var t boxwatch.Terminal
	err := r.Scan(nullString{&t.ID}, &t.LOCODE, &t.SMDGCode, &t.Name, timeCol{&t.CreatedAt}, timeCol{&t.UpdatedAt},
		&t.FIRMSCode, &t.Nickname, &t.Street, &t.City, &t.State, &t.StateAbbr, &t.Zip, &t.Country, &t.Listed)
	return t, err
}

// SaveTerminal records a terminal. A listed one (from the terminal list) is written whole; a
// carrier's report of a known terminal changes only the name, and only of a terminal not listed
// and when the report names it. A save that would change nothing writes nothing: every lookup and
// refresh mentions the terminals of its route, and writing the row each time would queue every
// transaction through a busy terminal behind the others on its row lock (on PostgreSQL; on
// SQLite it spares the writer).
func (tx *txn) SaveTerminal(ctx context.Context, t boxwatch.Terminal) error {
	cur, err := scanTerminal(tx.c.queryRow(ctx, "SELECT "+terminalColumns+" FROM terminals WHERE id = ?", t.ID))
	switch err = tx.db.lookupErr("terminal", err); {
	case err == nil && savedAlready(cur, t):
		return nil
	case err != nil && !errors.Is(err, boxwatch.ErrNotFound):
		return err
	}
	_, err = tx.c.exec(ctx, "INSERT INTO terminals ("+terminalColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
		name = CASE WHEN excluded.listed OR (NOT terminals.listed AND excluded.name <> '') THEN excluded.name ELSE terminals.name END,
		updated_at = CASE WHEN excluded.listed AND (excluded.name <> terminals.name OR excluded.firms_code <> terminals.firms_code
			OR excluded.nickname <> terminals.nickname OR excluded.street <> terminals.street OR excluded.city <> terminals.city
			OR excluded.zip <> terminals.zip OR NOT terminals.listed)
			OR NOT terminals.listed AND excluded.name <> '' AND excluded.name <> terminals.name
			THEN excluded.updated_at ELSE terminals.updated_at END,
		firms_code = CASE WHEN excluded.listed THEN excluded.firms_code ELSE terminals.firms_code END,
		nickname = CASE WHEN excluded.listed THEN excluded.nickname ELSE terminals.nickname END,
		street = CASE WHEN excluded.listed THEN excluded.street ELSE terminals.street END,
		city = CASE WHEN excluded.listed THEN excluded.city ELSE terminals.city END,
		state = CASE WHEN excluded.listed THEN excluded.state ELSE terminals.state END,
		state_abbr = CASE WHEN excluded.listed THEN excluded.state_abbr ELSE terminals.state_abbr END,
		zip = CASE WHEN excluded.listed THEN excluded.zip ELSE terminals.zip END,
		country = CASE WHEN excluded.listed THEN excluded.country ELSE terminals.country END,
		listed = terminals.listed OR excluded.listed`,
		t.ID, t.LOCODE, t.SMDGCode, t.Name, tx.db.ts(t.CreatedAt), tx.db.ts(t.UpdatedAt), t.FIRMSCode, t.Nickname, t.Street,
		t.City, t.State, t.StateAbbr, t.Zip, t.Country, t.Listed)
	tx.evict(terminalKey(t.ID), portTerminalsKey(t.LOCODE))
	return tx.db.internal("save terminal", err)
}

// savedAlready reports whether saving t over cur, as SaveTerminal's upsert does, would leave cur
// as it is.
func savedAlready(cur, t boxwatch.Terminal) bool {
	if !t.Listed {
		return cur.Listed || t.Name == "" || t.Name == cur.Name
	}
	return cur.Listed && cur.Name == t.Name && cur.FIRMSCode == t.FIRMSCode && cur.Nickname == t.Nickname &&
		cur.Street == t.Street && cur.City == t.City && cur.State == t.State && cur.StateAbbr == t.StateAbbr &&
		cur.Zip == t.Zip && cur.Country == t.Country
}

// TerminalByRef returns the terminal a ref names: by its port and SMDG code, else by its FIRMS
// code; ErrNotFound when none is known.
func (db *DB) TerminalByRef(ctx context.Context, ref boxwatch.TerminalRef) (boxwatch.Terminal, error) {
	if ref.SMDGCode != "" {
		t, err := scanTerminal(db.read.queryRow(ctx, "SELECT "+terminalColumns+" FROM terminals WHERE locode = ? AND smdg_code = ?",
			strings.ToUpper(ref.LOCODE), strings.ToUpper(ref.SMDGCode)))
		if err = db.lookupErr("terminal", err); !errors.Is(err, boxwatch.ErrNotFound) || ref.FIRMSCode == "" {
			return t, err
		}
	}
	if ref.FIRMSCode == "" {
		return boxwatch.Terminal{}, boxwatch.ErrNotFound
	}
	t, err := scanTerminal(db.read.queryRow(ctx, "SELECT "+terminalColumns+" FROM terminals WHERE firms_code = ? ORDER BY listed DESC, id LIMIT 1",
		strings.ToUpper(ref.FIRMSCode)))
	return t, db.lookupErr("terminal", err)
}

// Terminal returns a terminal by id, or ErrNotFound.
func (db *DB) Terminal(ctx context.Context, id string) (boxwatch.Terminal, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Terminal{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, terminalKey(id), "", func() (boxwatch.Terminal, error) {
		t, err := scanTerminal(db.read.queryRow(ctx, "SELECT "+terminalColumns+" FROM terminals WHERE id = ?", id))
		return t, db.lookupErr("terminal", err)
	})
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
	if hit, ok := cachedAll[[]boxwatch.Terminal](db.cache, portTerminalsKey, "", args); ok {
		for locode, list := range hit {
			if len(list) == 0 {
				delete(hit, locode) // as the database answers: no key for a port without terminals
			}
		}
		return hit, nil
	}
	tokens := db.cache.beginAll(portTerminalsKey, args)
	list, err := batch(ctx, db, "terminals at ports", "SELECT "+terminalColumns+" FROM terminals WHERE locode "+in(len(args))+
		" ORDER BY locode, smdg_code", pad(args), scanTerminal)
	for _, t := range list {
		out[t.LOCODE] = append(out[t.LOCODE], t)
	}
	if err == nil {
		putAll(db.cache, tokens, portTerminalsKey, "", args, nonNilLists(out, args), true)
	}
	return out, err
}

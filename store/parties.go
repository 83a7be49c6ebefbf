package store

import (
	"context"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

const partyColumns = `id, account_id, company_name, created_at, updated_at`

func scanParty(r row) (boxwatch.Party, error) {
	var p boxwatch.Party
	err := r.Scan(nullString{&p.ID}, nullString{&p.AccountID}, &p.CompanyName, timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt})
	return p, err
}

// CreateParty stores a new party.
func (db *DB) CreateParty(ctx context.Context, p boxwatch.Party) error {
	_, err := db.write.exec(ctx, "INSERT INTO parties ("+partyColumns+") VALUES (?, ?, ?, ?, ?)",
		p.ID, p.AccountID, p.CompanyName, db.ts(p.CreatedAt), db.ts(p.UpdatedAt))
	return db.internal("create party", err)
}

// Party returns one of the account's parties, or ErrNotFound.
func (db *DB) Party(ctx context.Context, accountID, id string) (boxwatch.Party, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Party{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, partyKey(id), accountID, func() (boxwatch.Party, error) {
		p, err := scanParty(db.read.queryRow(ctx, "SELECT "+partyColumns+" FROM parties WHERE account_id = ? AND id = ?", accountID, id))
		return p, db.lookupErr("party", err)
	})
}

// Parties returns one page of the account's parties, newest first, and how many there are.
func (db *DB) Parties(ctx context.Context, accountID string, p boxwatch.Page) ([]boxwatch.Party, int, error) {
	return page(ctx, db, "parties", partyColumns, "account_id = ?", []any{accountID}, p, scanParty)
}

// RenameParty changes a party's company name, and the name its shipments carry, in one
// transaction; it returns the party updated, or ErrNotFound.
func (db *DB) RenameParty(ctx context.Context, accountID, id, name string, now time.Time) (boxwatch.Party, error) {
	var p boxwatch.Party
	if !boxwatch.IsUUID(id) {
		return p, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	err := db.InTx(ctx, func(t boxwatch.Tx) error {
		tx := t.(*txn)
		tx.evict(partyKey(id))
		var err error
		p, err = scanParty(tx.c.queryRow(ctx, "UPDATE parties SET company_name = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING "+partyColumns,
			name, db.ts(now), accountID, id))
		if err := db.lookupErr("rename party", err); err != nil {
			return err
		}
		_, err = tx.c.exec(ctx, "UPDATE shipments SET customer_name = ? WHERE account_id = ? AND customer_id = ?", name, accountID, p.ID)
		return db.internal("rename party's shipments", err)
	})
	if err == nil {
		db.cache.dropAll() // the shipments renamed are not known here; renames are rare
	}
	return p, err
}

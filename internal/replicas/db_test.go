package replicas_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the SQLite soak reads the service's file

	"github.com/boxwatch/boxwatch"
)

// database is the test's own connection to the service's database, PostgreSQL or SQLite: the
// checks count rows through it, in the few places where the dialects differ through its methods.
type database interface {
	query(q string, args ...any) ([]any, error) // the first column of every row
	// subscribed is a condition: the webhook w subscribes to event e's name.
	subscribed() string
	// at is a time as a query argument compared with the service's timestamp columns.
	at(time.Time) any
	// refreshLag is how late the oldest due refresh is, counted from since at the earliest: a
	// refresh that came due before then (while the soak seeded) is late only from then on.
	refreshLag(since time.Time) time.Duration
	// terminalLag is how late the oldest due terminal check is, counted from since at the
	// earliest, and how many checks are due.
	terminalLag(since time.Time) (time.Duration, int)
	// jobWait is how long the oldest job of a kind that may run now has waited for a worker,
	// counted from since at the earliest.
	jobWait(kind string, since time.Time) time.Duration
	// sizes describes the disk the service's tables take, table by table, largest first.
	sizes() string
	close()
}

type postgresDB struct{ conn *pgx.Conn }

func openPostgres(t *testing.T, dsn string) *postgresDB {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return &postgresDB{conn}
}

func (d *postgresDB) query(q string, args ...any) ([]any, error) {
	rows, err := d.conn.Query(context.Background(), q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (any, error) {
		var v any
		err := r.Scan(&v)
		return v, err
	})
}

func (d *postgresDB) at(t time.Time) any { return t }

func (d *postgresDB) subscribed() string { return `w.events ? e.name` }

// PostgreSQL's GREATEST skips a NULL: with nothing due it would answer since, so an empty set
// returns no row (and the lag 0).
func (d *postgresDB) refreshLag(since time.Time) time.Duration {
	var secs float64
	if err := d.conn.QueryRow(context.Background(), `SELECT COALESCE(EXTRACT(EPOCH FROM now() - GREATEST(min(next_refresh_at), $1)), 0)
		FROM shipments WHERE next_refresh_at <= now() AND stopped_at IS NULL HAVING count(*) > 0`, since).Scan(&secs); err != nil {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

func (d *postgresDB) terminalLag(since time.Time) (time.Duration, int) {
	var secs float64
	var due int
	ctx := context.Background()
	if err := d.conn.QueryRow(ctx, `SELECT COALESCE(EXTRACT(EPOCH FROM now() - GREATEST(min(c.terminal_next_check_at), $1)), 0)
		FROM containers c JOIN shipments s ON s.id = c.shipment_id
		WHERE c.terminal_next_check_at <= now() AND (s.stopped_at IS NULL OR s.stopped_reason NOT IN ($2, $3)) HAVING count(*) > 0`,
		since, boxwatch.StopCancelledByUser, boxwatch.StopBookingCancelled).Scan(&secs); err != nil {
		return 0, 0
	}
	if err := d.conn.QueryRow(ctx, `SELECT count(*) FROM containers WHERE terminal_next_check_at <= now()`).Scan(&due); err != nil {
		return 0, 0
	}
	return time.Duration(secs * float64(time.Second)), due
}

func (d *postgresDB) jobWait(kind string, since time.Time) time.Duration {
	var secs float64
	if err := d.conn.QueryRow(context.Background(), `SELECT COALESCE(EXTRACT(EPOCH FROM now() - GREATEST(min(scheduled_at), $2)), 0)
		FROM river_job WHERE kind = $1 AND state = 'available' HAVING count(*) > 0`, kind, since).Scan(&secs); err != nil {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

// sizes lists the tables of the service's schema over 1 MiB: rows (the planner's estimate after
// ANALYZE), table with its TOAST, indexes, and total (pg_total_relation_size).
func (d *postgresDB) sizes() string {
	rows, err := d.conn.Query(context.Background(), `SELECT c.relname, c.reltuples::bigint, pg_table_size(c.oid), pg_indexes_size(c.oid),
		pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	var sum int64
	fmt.Fprintf(&b, "%-28s %12s %10s %10s %10s\n", "table", "rows (est.)", "table MiB", "index MiB", "total MiB")
	for rows.Next() {
		var name string
		var n, table, index, total int64
		if err := rows.Scan(&name, &n, &table, &index, &total); err != nil {
			return err.Error()
		}
		sum += total
		if total >= 1<<20 {
			fmt.Fprintf(&b, "%-28s %12d %10.1f %10.1f %10.1f\n", name, n, mib(table), mib(index), mib(total))
		}
	}
	if err := rows.Err(); err != nil {
		return err.Error()
	}
	fmt.Fprintf(&b, "%-28s %12s %10s %10s %10.1f", "every table of the schema", "", "", "", mib(sum))
	return b.String()
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

func (d *postgresDB) close() { d.conn.Close(context.Background()) }

// sqliteDB reads the file the service writes; WAL lets it read while the service writes, and its
// one write (the seeding) waits for the service's writer like any other.
type sqliteDB struct{ db *sql.DB }

func openSQLiteFile(t *testing.T, path string) *sqliteDB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	return &sqliteDB{db}
}

// placeholder matches PostgreSQL's $n, which SQLite spells ?n.
var placeholder = regexp.MustCompile(`\$(\d+)`)

func (d *sqliteDB) query(q string, args ...any) ([]any, error) {
	rows, err := d.db.Query(placeholder.ReplaceAllString(q, "?$1"), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []any
	for rows.Next() {
		var v any
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	return list, rows.Err()
}

func (d *sqliteDB) at(t time.Time) any { return t.UnixMicro() }

func (d *sqliteDB) subscribed() string {
	return `EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value = e.name)`
}

// refreshLag reads times as the service stores them, microseconds since the epoch.
func (d *sqliteDB) refreshLag(since time.Time) time.Duration {
	now := time.Now().UnixMicro()
	var oldest sql.NullInt64
	if err := d.db.QueryRow(`SELECT min(next_refresh_at) FROM shipments WHERE next_refresh_at <= ? AND stopped_at IS NULL`,
		now).Scan(&oldest); err != nil || !oldest.Valid {
		return 0
	}
	return time.Duration(now-max(oldest.Int64, since.UnixMicro())) * time.Microsecond
}

func (d *sqliteDB) terminalLag(since time.Time) (time.Duration, int) {
	now := time.Now().UnixMicro()
	var oldest sql.NullInt64
	var due int
	if err := d.db.QueryRow(`SELECT min(c.terminal_next_check_at) FROM containers c JOIN shipments s ON s.id = c.shipment_id
		WHERE c.terminal_next_check_at <= ? AND (s.stopped_at IS NULL OR s.stopped_reason NOT IN (?, ?))`,
		now, boxwatch.StopCancelledByUser, boxwatch.StopBookingCancelled).Scan(&oldest); err != nil || !oldest.Valid {
		return 0, 0
	}
	if err := d.db.QueryRow(`SELECT count(*) FROM containers WHERE terminal_next_check_at <= ?`, now).Scan(&due); err != nil {
		return 0, 0
	}
	return time.Duration(now-max(oldest.Int64, since.UnixMicro())) * time.Microsecond, due
}

// jobWait reads River's times, which it keeps on SQLite as UTC text.
func (d *sqliteDB) jobWait(kind string, since time.Time) time.Duration {
	var secs sql.NullFloat64
	if err := d.db.QueryRow(`SELECT (julianday('now') - julianday(max(min(scheduled_at), ?))) * 86400
		FROM river_job WHERE kind = ? AND state = 'available'`, since.UTC().Format("2006-01-02 15:04:05.000"), kind).Scan(&secs); err != nil || !secs.Valid {
		return 0
	}
	return time.Duration(max(secs.Float64, 0) * float64(time.Second))
}

// sizes lists the tables and indexes over 1 MiB from SQLite's dbstat, and the whole file.
func (d *sqliteDB) sizes() string {
	var b strings.Builder
	rows, err := d.db.Query(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC`)
	if err != nil {
		fmt.Fprintf(&b, "(dbstat: %v)\n", err)
	} else {
		defer rows.Close()
		fmt.Fprintf(&b, "%-40s %10s\n", "table or index", "MiB")
		for rows.Next() {
			var name string
			var size int64
			if err := rows.Scan(&name, &size); err != nil {
				return err.Error()
			}
			if size >= 1<<20 {
				fmt.Fprintf(&b, "%-40s %10.1f\n", name, mib(size))
			}
		}
	}
	var pages, pageSize int64
	if err := d.db.QueryRow(`SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&pages, &pageSize); err != nil {
		return b.String() + err.Error()
	}
	fmt.Fprintf(&b, "%-40s %10.1f", "the whole file", mib(pages*pageSize))
	return b.String()
}

func (d *sqliteDB) close() { d.db.Close() }

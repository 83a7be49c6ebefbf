package ingest_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// FuzzFeed: whatever a feed sends, ingest neither panics nor fails, counts every line, and what it
// stores reads back.
func FuzzFeed(f *testing.F) {
	valid := func(ms ...ais.Message) []byte { return nmea(f, ms...) }
	f.Add(valid(static(), report(0, 90), report(time.Hour, 180)))
	f.Add([]byte("!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*23\n\\c:1700000000*5F\\!AIVDM,2,1,6,B,5INSC,0*00\n"))
	f.Add([]byte("\\s:rx,c:99999999999999*00\\!AIVDM,1,1,,A,,0*26\r\n\x00\xff\n"))
	f.Add(bytes.Repeat([]byte("!AIVDM,2,1,1,A,"), 200))
	db := storetest.SQLite.Open(f)
	trackVessel(f, db, imo)
	f.Fuzz(func(t *testing.T, feed []byte) {
		in, err := ingest.New(ingest.Config{Store: db, Clock: func() time.Time { return start }})
		if err != nil {
			t.Fatal(err)
		}
		if err := in.RefreshActive(ctx); err != nil {
			t.Fatal(err)
		}
		if err := in.Feed(ctx, bytes.NewReader(feed)); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatalf("flush after %q: %v", feed, err)
		}
		st := in.Stats()
		if lines := int64(bytes.Count(feed, []byte("\n"))); st.Lines < lines || st.Lines > lines+1 {
			t.Fatalf("%d lines counted in a feed of %d newlines", st.Lines, lines)
		}
		if _, err := db.Vessel(ctx, imo); err != nil {
			t.Fatal(err)
		}
	})
}

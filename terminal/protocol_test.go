package terminal_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

const box = "MSCU1234566"

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseInYard(t *testing.T) {
	r, err := terminal.Parse(mustRead(t, "in_yard.json"), box)
	if err != nil {
		t.Fatal(err)
	}
	no := false
	la, _ := time.LoadLocation("America/Los_Angeles")
	want := boxwatch.TerminalReport{
		CheckedAt: time.Date(2026, 11, 20, 15, 4, 0, 0, time.UTC),
		Available: &no,
		Holds: []boxwatch.TerminalHold{
			{Name: "customs", Status: "hold", Description: "Awaiting customs release"},
			{Name: "usda", Status: "pending"},
			{Name: "tmf", Status: "hold"},
			{Name: "other", Status: "hold", Description: "MACHINE - "},
		},
		Fees: []boxwatch.TerminalFee{{Type: "demurrage", Amount: 300, Currency: "USD"}, {Type: "exam", Amount: 350, Currency: "USD"},
			{Type: "extended_dwell_time", Amount: 100, Currency: "USD"}, {Type: "other", Amount: 0, Currency: "USD"},
			{Type: "total", Amount: 750, Currency: "USD"}},
		// The last free days are dates at the terminal: the start of that day in Los Angeles.
		TerminalLFD:   time.Date(2026, 11, 24, 0, 0, 0, 0, la).UTC(),
		LineLFD:       time.Date(2026, 11, 26, 0, 0, 0, 0, la).UTC(),
		AppointmentAt: time.Date(2026, 11, 23, 16, 30, 0, 0, time.UTC),
		Location:      "B12-03-2",
		DischargedAt:  time.Date(2026, 11, 19, 22, 10, 0, 0, time.UTC),
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", r, want)
	}
	if r.TerminalLFD.Equal(r.LineLFD) {
		t.Error("the terminal's and the line's last free days must stay distinct")
	}
}

func TestParseElsewhere(t *testing.T) {
	r, err := terminal.Parse(mustRead(t, "elsewhere.json"), strings.ToLower(box))
	if err != nil {
		t.Fatal(err)
	}
	if want := (boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "TRAP", FIRMSCode: "Y258"}); r.At != want || r.Available != nil || len(r.Holds) != 0 {
		t.Fatalf("got %+v, want only the terminal %+v", r, want)
	}
}

func TestParseEmptyReturned(t *testing.T) {
	r, err := terminal.Parse(mustRead(t, "empty_returned.json"), box)
	if err != nil {
		t.Fatal(err)
	}
	if !r.FullOutAt.Equal(time.Date(2026, 11, 23, 16, 41, 0, 0, time.UTC)) || !r.EmptyInAt.Equal(time.Date(2026, 11, 28, 9, 12, 0, 0, time.UTC)) {
		t.Fatalf("gate records %v, %v", r.FullOutAt, r.EmptyInAt)
	}
}

// A 1.1 answer: the vessel's berthing and the box's move to an off-dock yard.
func TestParseOffDock(t *testing.T) {
	r, err := terminal.Parse(mustRead(t, "off_dock.json"), box)
	if err != nil {
		t.Fatal(err)
	}
	if !r.VesselBerthedAt.Equal(time.Date(2026, 11, 19, 14, 30, 0, 0, time.UTC)) || !r.OffDockAt.Equal(time.Date(2026, 11, 21, 3, 15, 0, 0, time.UTC)) ||
		r.OffDockName != "Pier S off-dock yard" || !r.FullOutAt.IsZero() {
		t.Fatalf("got berthed %v, off dock %v at %q, full out %v", r.VesselBerthedAt, r.OffDockAt, r.OffDockName, r.FullOutAt)
	}
}

// Every malformed answer is refused with a message saying what is wrong, never a panic.
func TestParseMalformed(t *testing.T) {
	ok := `"container_number":"MSCU1234566","status":"in_yard","checked_at":"2026-11-20T15:04:00Z"`
	for _, tt := range []struct {
		name, body, want string
	}{
		{"Empty", ``, "not a container document"},
		{"NotJSON", `<html>busy</html>`, "not a container document"},
		{"Array", `[]`, "not a container document"},
		{"Trailing", `{` + ok + `} {}`, "data after"},
		{"OtherBox", `{"container_number":"MSKU1234565","status":"in_yard","checked_at":"2026-11-20T15:04:00Z"}`, "not MSCU1234566"},
		{"NoCheckedAt", `{"container_number":"MSCU1234566","status":"in_yard"}`, "checked_at is missing"},
		{"BadCheckedAt", `{"container_number":"MSCU1234566","status":"in_yard","checked_at":"yesterday"}`, "not an RFC 3339 time"},
		{"UnknownStatus", `{"container_number":"MSCU1234566","status":"lost","checked_at":"2026-11-20T15:04:00Z"}`, "unknown status"},
		{"ElsewhereWithoutTerminal", `{"container_number":"MSCU1234566","status":"elsewhere","checked_at":"2026-11-20T15:04:00Z"}`, "names no terminal"},
		{"TerminalWithoutCode", `{` + ok + `,"terminal":{"locode":"USLAX"}}`, "SMDG or FIRMS"},
		{"UnknownHold", `{` + ok + `,"holds":[{"type":"pirates","status":"hold"}]}`, "unknown hold type"},
		{"UnknownHoldStatus", `{` + ok + `,"holds":[{"type":"customs","status":"maybe"}]}`, "unknown hold status"},
		{"UnknownFee", `{` + ok + `,"fees":[{"type":"bribe","amount":1,"currency":"USD"}]}`, "unknown fee type"},
		{"NegativeFee", `{` + ok + `,"fees":[{"type":"exam","amount":-1,"currency":"USD"}]}`, "not an amount"},
		{"HugeFee", `{` + ok + `,"fees":[{"type":"exam","amount":1e300,"currency":"USD"}]}`, "not an amount"},
		{"BadCurrency", `{` + ok + `,"fees":[{"type":"exam","amount":1,"currency":"usd"}]}`, "ISO 4217"},
		{"AmountAsString", `{` + ok + `,"fees":[{"type":"exam","amount":"1","currency":"USD"}]}`, "not a container document"},
		{"BadLFD", `{` + ok + `,"last_free_day":{"terminal":"24/11/2026"}}`, "not a date"},
		{"BadAppointment", `{` + ok + `,"appointment":{"at":"soon"}}`, "not an RFC 3339 time"},
		{"BadGateOut", `{` + ok + `,"full_out_at":"2026-13-01T00:00:00Z"}`, "not an RFC 3339 time"},
		{"BadBerth", `{` + ok + `,"vessel_berthed_at":"at noon"}`, "not an RFC 3339 time"},
		{"OffDockWithoutTime", `{` + ok + `,"off_dock":{"name":"yard"}}`, "off_dock.moved_at is missing"},
		{"OffDockControl", `{` + ok + `,"off_dock":{"name":"yard\u0007","moved_at":"2026-11-21T03:15:00Z"}}`, "control characters"},
		{"ZonePath", `{` + ok + `,"time_zone":"../../../etc/passwd"}`, "not an IANA time zone"},
		{"ZoneUnknown", `{` + ok + `,"time_zone":"Mars/Olympus_Mons"}`, "not an IANA time zone"},
		{"ZoneLocal", `{` + ok + `,"time_zone":"Local"}`, "not an IANA time zone"},
		{"ControlInYard", `{` + ok + `,"yard_location":"A1\u0000"}`, "control characters"},
		{"LongYard", `{` + ok + `,"yard_location":"` + strings.Repeat("A", 201) + `"}`, "longer than 200"},
		{"TooManyHolds", `{` + ok + `,"holds":[` + strings.Repeat(`{"type":"customs","status":"hold"},`, 100) + `{"type":"customs","status":"hold"}]}`, "more than 100"},
		{"Oversized", `{` + ok + `,"yard_location":"` + strings.Repeat(" ", terminal.MaxResponseBytes) + `"}`, "longer than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := terminal.Parse([]byte(tt.body), box)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// FuzzParse: whatever a terminal sends, Parse returns a report or an error, never panics, and a
// report it accepts holds only the reference's hold and fee types, finite amounts and UTC times.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"in_yard.json", "elsewhere.json", "empty_returned.json", "off_dock.json"} {
		f.Add(mustRead(f, name))
	}
	f.Add([]byte(`{"container_number":"MSCU1234566","status":"inbound","checked_at":"2026-11-20T15:04:00Z","holds":[{"type":"customs","status":"pending"}]}`))
	f.Add([]byte(`{"container_number":"MSCU1234566","status":"in_yard","checked_at":"2026-11-20T15:04:00Z","time_zone":"Asia/Tokyo","last_free_day":{"line":"2026-11-30"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := terminal.Parse(body, box)
		if err != nil {
			return
		}
		for _, h := range r.Holds {
			if h.Status != "hold" && h.Status != "pending" || h.Name == "" {
				t.Fatalf("hold %+v", h)
			}
		}
		for _, fee := range r.Fees {
			if fee.Amount < 0 || fee.Amount != fee.Amount || len(fee.Currency) != 3 {
				t.Fatalf("fee %+v", fee)
			}
		}
		for _, tm := range []time.Time{r.CheckedAt, r.TerminalLFD, r.LineLFD, r.AppointmentAt, r.FullOutAt, r.EmptyInAt, r.DischargedAt} {
			if !tm.IsZero() && tm.Location() != time.UTC {
				t.Fatalf("time %v is not UTC", tm)
			}
		}
	})
}

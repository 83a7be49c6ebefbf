package boxwatch

import "time"

// Port is a place on a route, known by its UN/LOCODE.
type Port struct {
	// ID is a UUID derived from the LOCODE, the same on every installation (see PortID).
	ID        string
	LOCODE    string
	Name      string
	City      string
	State     string // province or state name, when known
	StateAbbr string // its code, when known
	Country   string
	// CountryCode is the ISO 3166-1 alpha-2 code: the first two letters of the LOCODE.
	CountryCode string
	// TimeZone is the IANA time zone name, when known.
	TimeZone string
	// Latitude and Longitude are WGS84 degrees; HasCoordinates is false when unknown.
	Latitude, Longitude float64
	HasCoordinates      bool
}

// PortID derives the stable UUID of the port with that LOCODE.
func PortID(locode string) string { return NameUUID("boxwatch/port/" + locode) }

// Vessel is a ship, known by its IMO number.
type Vessel struct {
	// ID is a UUID derived from the IMO number (see VesselID).
	ID       string
	IMO      string
	MMSI     string // empty when unknown
	Name     string
	CallSign string
	Flag     string // ISO 3166-1 alpha-2, when known
	// Position is the latest known position; nil until one is known (the map issue fills it).
	Position *VesselPosition
}

// VesselID derives the stable UUID of the vessel with that IMO number.
func VesselID(imo string) string { return NameUUID("boxwatch/vessel/" + imo) }

// VesselPosition is where a vessel was at a time, as its AIS reports said. Speed, course and
// heading are nil when the report said they were not available.
type VesselPosition struct {
	MMSI                string
	Latitude, Longitude float64
	SpeedKnots          *float64
	CourseDegrees       *float64
	HeadingDegrees      *float64
	Timestamp           time.Time
}

// VesselIdentity is what a vessel's static AIS reports say of it: the MMSI it broadcasts as and
// the IMO number, name and call sign it gives. Empty fields were not given.
type VesselIdentity struct {
	MMSI, IMO, Name, CallSign string
}

// ValidMMSI reports whether s is a nine-digit Maritime Mobile Service Identity.
func ValidMMSI(s string) bool { return len(s) == 9 && IsDigits(s) }

// ValidIMO reports whether s is a seven-digit IMO ship number with a correct check digit (the
// last digit is the sum of the first six weighted 7 down to 2, modulo 10).
func ValidIMO(s string) bool {
	if len(s) != 7 {
		return false
	}
	sum := 0
	for i := 0; i < 7; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		if i < 6 {
			sum += int(s[i]-'0') * (7 - i)
		}
	}
	return sum%10 == int(s[6]-'0')
}

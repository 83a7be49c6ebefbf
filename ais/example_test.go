package ais_test

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/geo"
)

func ExampleDecoder() {
	feed := `\s:rx1,c:1700000000*01\!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*23
!AIVDM,2,1,6,B,5INSC` + "`" + `h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A
!AIVDM,2,2,6,B,>r@00000000,2*1D
!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*24`
	var d ais.Decoder
	var m ais.Message // one Message for every line: decoding does not allocate
	sc := bufio.NewScanner(strings.NewReader(feed))
	for sc.Scan() {
		ok, err := d.Decode(sc.Bytes(), &m)
		switch {
		case err != nil:
			fmt.Println("skipped:", err)
		case ok && m.HasPosition:
			fmt.Printf("%d at %.5f,%.5f, course %.1f, heading known %v, %s\n", m.MMSI, m.Position.Lat, m.Position.Lon, m.Course, m.HasHeading, m.Time.Format(time.RFC3339))
		case ok:
			fmt.Printf("%d is %s, IMO %d, call sign %s, bound for %s\n", m.MMSI, m.Name, m.IMO, m.CallSign, m.Destination)
		}
	}
	fmt.Println(d.Stats.Lines, "lines,", d.Stats.Errors[ais.ErrChecksum], "bad checksum")
	// Output:
	// 227006760 at 49.47558,0.13138, course 36.7, heading known false, 2023-11-14T22:13:20Z
	// 636015523 is CAP TRAFALGAR, IMO 9215660, call sign ELYX 3, bound for GUAYAQUIL ;)
	// skipped: ais: checksum
	// 4 lines, 1 bad checksum
}

func ExampleEncoder() {
	e := ais.Encoder{}
	m := ais.Message{Type: 1, MMSI: 477553000, Time: time.Unix(1700000000, 0),
		Position: geo.Point{Lat: 22.28, Lon: 114.17}, HasPosition: true, Speed: 18.5, HasSpeed: true, Course: 90, HasCourse: true}
	out, err := e.Append(nil, &m)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// \c:1700000000*5F\!AIVDM,1,1,,A,177KQJ0P2q8:`?P<grh3Q?wp0000,0*72
}

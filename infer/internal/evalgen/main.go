// Command evalgen writes the labelled evaluation set of package infer (testdata/eval.csv) from
// public facts: owner prefixes from the BIC-based table of Source A, bill-of-lading formats and
// examples published by Vizion and Terminal49, the numbers of the shipments Terminal49's examples
// show tracked, ISO 6346 check digits, leasing companies' prefixes and bare numbers that several
// formats fit. Each row says whether its number is printed in a source (published) or drawn by
// the generator from a source's formats and prefixes (generated). SOURCES.md, next to this file,
// lists the sources.
//
// The labels never come from the engine or from the registry it reads: the facts are transcribed
// here on their own, and the check digits are computed by an independent implementation anchored
// to published examples, so that the evaluation can catch a wrong registry entry as well as a
// wrong rule. The output is deterministic.
//
// Usage, from the module root:
//
//	go run ./infer/internal/evalgen -o infer/testdata/eval.csv
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "evalgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("evalgen", flag.ContinueOnError)
	out := fs.String("o", "", "write the set to this file instead of standard output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for number, want := range publishedCheckDigits {
		if got := checkDigit(number); got != want {
			return fmt.Errorf("check-digit oracle gives %d for %s, the published value is %d", got, number, want)
		}
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	return write(w, generate())
}

// item is one labelled number.
type item struct {
	number   string // as a user would paste it
	kind     string // container, bill_of_lading or booking
	carrier  string // SCAC of the registry line, or "unknown"
	knowable bool   // the number itself identifies the carrier (owner code or bill prefix)
	valid    string // ISO 6346 validity for containers ("true"/"false"), empty otherwise
	source   string // key into SOURCES.md
}

const unknown = "unknown"

// row is an item of the set with its origin: "published" when the number is printed in its
// source, "generated" when the generator drew it from a source's formats or prefixes (the same
// facts the registry encodes).
type row struct {
	item
	origin string
}

func write(w io.Writer, rows []row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"number", "type", "carrier", "knowable", "valid", "source", "origin"})
	for _, r := range rows {
		cw.Write([]string{r.number, r.kind, r.carrier, strconv.FormatBool(r.knowable), r.valid, r.source, r.origin})
	}
	cw.Flush()
	return cw.Error()
}

// set collects rows, dropping any number already present once normalised.
type set struct {
	rng  *rand.Rand
	seen map[string]bool
	rows []row
}

// add adds a generated number.
func (s *set) add(it item) { s.put(row{it, "generated"}) }

// addPublished adds a number printed in its source.
func (s *set) addPublished(it item) { s.put(row{it, "published"}) }

func (s *set) put(r row) {
	key := normalise(r.number)
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	s.rows = append(s.rows, r)
}

func normalise(n string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", ".", "", "/", "").Replace(n))
}

func generate() []row {
	s := &set{rng: rand.New(rand.NewPCG(6346, 2026)), seen: map[string]bool{}}

	// Published numbers, verbatim: the sources' examples, then the numbers of the shipments
	// Terminal49's examples show tracked.
	for _, ex := range append(publishedExamples, trackedExamples...) {
		s.addPublished(ex)
	}

	// Containers of carriers' own prefixes: two valid numbers per prefix.
	for _, o := range carrierOwners {
		for _, p := range o.prefixes {
			for range 2 {
				n := s.container(p)
				s.add(item{s.styleContainer(n), "container", o.scac, true, "true", "A"})
			}
		}
	}
	// Typos: wrong check digit, swapped or changed serial digits. Validity comes from the
	// oracle, since some typos keep the check digit right.
	for range 80 {
		o := carrierOwners[s.rng.IntN(len(carrierOwners))]
		n := s.corrupt(s.container(o.prefixes[s.rng.IntN(len(o.prefixes))]))
		s.add(item{s.styleContainer(n), "container", o.scac, true, validity(n), "A+typo"})
	}
	// Serials whose check sum leaves remainder 10: the check digit is 0.
	for added := 0; added < 10; {
		o := carrierOwners[s.rng.IntN(len(carrierOwners))]
		n := s.container(o.prefixes[s.rng.IntN(len(o.prefixes))])
		if checkSum(n)%11 == 10 {
			s.add(item{n, "container", o.scac, true, "true", "iso6346-r10"})
			added++
		}
	}
	// Check digit left off.
	for range 20 {
		o := carrierOwners[s.rng.IntN(len(carrierOwners))]
		n := s.container(o.prefixes[s.rng.IntN(len(o.prefixes))])
		s.add(item{n[:10], "container", o.scac, true, "false", "A+missing"})
	}
	// Leasing companies' boxes: any carrier may move them.
	for i := range 120 {
		n := s.container(lessorPrefixes[s.rng.IntN(len(lessorPrefixes))])
		valid := "true"
		if i%12 == 0 {
			n = s.corrupt(n)
			valid = validity(n)
		}
		s.add(item{s.styleContainer(n), "container", unknown, false, valid, "A-lessor"})
	}
	// Owners that are neither registry carriers nor lessors.
	for _, p := range otherOwnerPrefixes {
		n := s.container(p)
		s.add(item{s.styleContainer(n), "container", unknown, false, "true", "A-other"})
	}

	// Bills of lading with their carrier's prefix, and bare bodies where the carrier prints them
	// without one.
	for _, b := range billFormats {
		for i := range 6 {
			body := b.bodies[i%len(b.bodies)](s.rng)
			prefix := b.prefixes[i%len(b.prefixes)]
			s.add(item{s.styleBill(prefix, body), "bill_of_lading", b.scac, true, "", b.source})
		}
		if b.bare {
			for i := range 5 {
				body := b.bodies[i%len(b.bodies)](s.rng)
				s.add(item{body, "bill_of_lading", b.scac, false, "", b.source + "+bare"})
			}
		}
	}
	// Bills of carriers outside the registry, with their own prefixes.
	for _, b := range foreignBills {
		for range 5 {
			s.add(item{b.prefix + b.body(s.rng), "bill_of_lading", unknown, false, "", "vizion-2026"})
		}
	}
	// Maersk booking numbers: nine digits, also its bill-of-lading body (SOURCES.md explains the
	// label).
	for range 30 {
		s.add(item{digits(s.rng, 9), "booking", "MAEU", false, "", "peers-4.4"})
	}
	for range 5 {
		s.add(item{letters(s.rng, 3) + digits(s.rng, 6), "booking", "MAEU", false, "", "peers-4.4"})
	}
	return s.rows
}

// container draws a serial for prefix and returns the number with its check digit.
func (s *set) container(prefix string) string {
	n := prefix + fmt.Sprintf("%06d", s.rng.IntN(1_000_000))
	return n + strconv.Itoa(checkDigit(n))
}

// corrupt introduces one typo in a valid container number.
func (s *set) corrupt(n string) string {
	b := []byte(n)
	switch s.rng.IntN(3) {
	case 0: // wrong check digit
		b[10] = byte('0' + (int(b[10]-'0')+1+s.rng.IntN(9))%10)
	case 1: // two adjacent serial digits swapped
		i := 4 + s.rng.IntN(5)
		b[i], b[i+1] = b[i+1], b[i]
		if b[i] == b[i+1] {
			b[10] = byte('0' + (int(b[10]-'0')+1)%10)
		}
	default: // one serial digit changed
		i := 4 + s.rng.IntN(6)
		b[i] = byte('0' + (int(b[i]-'0')+1+s.rng.IntN(9))%10)
	}
	return string(b)
}

// styleContainer writes a container number the ways people paste it.
func (s *set) styleContainer(n string) string {
	switch s.rng.IntN(10) {
	case 0:
		return strings.ToLower(n)
	case 1:
		return n[:4] + " " + n[4:10] + " " + n[10:]
	case 2:
		return n[:4] + "-" + n[4:10] + "-" + n[10:]
	case 3:
		return n[:4] + " " + n[4:]
	}
	return n
}

func (s *set) styleBill(prefix, body string) string {
	switch s.rng.IntN(8) {
	case 0:
		return prefix + " " + body
	case 1:
		return strings.ToLower(prefix + body)
	case 2:
		return prefix + "-" + body
	}
	return prefix + body
}

func validity(n string) string {
	return strconv.FormatBool(checkDigit(n) == int(n[10]-'0'))
}

// checkSum is the ISO 6346 weighted sum of the first ten characters: letters count from A=10
// upward, stepping over 11, 22 and 33, digits at face value, position i weighs 2^i.
func checkSum(n string) int {
	sum := 0
	for i := 0; i < 10; i++ {
		c := n[i]
		v := int(c - '0')
		if c >= 'A' {
			v = 10 + int(c-'A')
			for _, m := range []int{11, 22, 33} {
				if v >= m {
					v++
				}
			}
		}
		sum += v << i
	}
	return sum
}

func checkDigit(n string) int { return checkSum(n) % 11 % 10 }

// publishedCheckDigits anchor the oracle (peers.md §4.1).
var publishedCheckDigits = map[string]int{"CSQU305438": 3, "APZU481209": 0, "MWCU605978": 4}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

func letters(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + r.IntN(26))
	}
	return string(b)
}

func alnum(r *rand.Rand, n int) string {
	const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

// body builds a random body from parts: "L3" letters, "D7" digits, "X9" letters or digits,
// anything else literally.
func body(parts ...string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var b strings.Builder
		for _, p := range parts {
			n, err := strconv.Atoi(p[1:])
			switch {
			case err == nil && p[0] == 'L':
				b.WriteString(letters(r, n))
			case err == nil && p[0] == 'D':
				b.WriteString(digits(r, n))
			case err == nil && p[0] == 'X':
				b.WriteString(alnum(r, n))
			default:
				b.WriteString(p)
			}
		}
		return b.String()
	}
}

// oneOf picks one of the strings.
func oneOf(options ...string) func(*rand.Rand) string {
	return func(r *rand.Rand) string { return options[r.IntN(len(options))] }
}

// concat joins generated parts.
func concat(parts ...func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p(r))
		}
		return b.String()
	}
}

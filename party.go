package boxwatch

import (
	"strings"
	"time"
)

// Party is a customer an account tracks shipments for: a tracking request may name one, and its
// shipment then carries the customer's name.
type Party struct {
	ID          string
	AccountID   string
	CompanyName string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// MaxCompanyNameLen is the longest company name a party may have.
const MaxCompanyNameLen = 200

// NormalizeCompanyName trims a company name and checks it: not blank, at most MaxCompanyNameLen
// characters. Errors point at /data/attributes/company_name.
func NormalizeCompanyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", Invalid(attrPointer+"company_name", CodeBlank, "Company name can't be blank")
	case len([]rune(name)) > MaxCompanyNameLen:
		return "", Invalid(attrPointer+"company_name", CodeTooLong, "Company name is at most %d characters", MaxCompanyNameLen)
	}
	return name, nil
}

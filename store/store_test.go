package store_test

import (
	"testing"

	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.ForEach(t, storetest.Run)
}

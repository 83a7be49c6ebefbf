package tracking

import (
	"context"

	"github.com/riverqueue/river/rivertype"
)

// WaitingLookups returns the lookup jobs that wait to run.
func (e *Engine) WaitingLookups(ctx context.Context) ([]*rivertype.JobRow, error) {
	return e.queue.Waiting(ctx, lookupArgs{}.Kind())
}

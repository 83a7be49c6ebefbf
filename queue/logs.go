package queue

import (
	"context"
	"log/slog"
	"strings"
)

// routineHandler logs River's routine reports at debug level: its producers' job counts and its
// maintenance services' "ran successfully" lines, which come every few seconds on a busy queue.
// The rescuer's reports stay at their level: they mean a process died.
type routineHandler struct{ slog.Handler }

func (h routineHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && routine(r.Message) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func routine(msg string) bool {
	return strings.HasSuffix(msg, ": Producer job counts") ||
		strings.HasSuffix(msg, ": Ran successfully") && !strings.HasPrefix(msg, "JobRescuer")
}

func (h routineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return routineHandler{h.Handler.WithAttrs(attrs)}
}

func (h routineHandler) WithGroup(name string) slog.Handler {
	return routineHandler{h.Handler.WithGroup(name)}
}

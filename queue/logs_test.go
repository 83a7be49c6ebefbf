package queue

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestRoutineLinesAtDebug(t *testing.T) {
	for name, tt := range map[string]struct {
		msg   string
		level slog.Level // the handler's level
		want  string     // the level logged, "" for nothing
	}{
		"ProducerCountsHiddenAtInfo":    {"producer: Producer job counts", slog.LevelInfo, ""},
		"ProducerCountsShownAtDebug":    {"producer: Producer job counts", slog.LevelDebug, "DEBUG"},
		"SchedulerRunHiddenAtInfo":      {"JobScheduler: Ran successfully", slog.LevelInfo, ""},
		"RescuerRunStaysInfo":           {"JobRescuer: Ran successfully", slog.LevelInfo, "INFO"},
		"OtherLinesStayInfo":            {"River client started", slog.LevelInfo, "INFO"},
		"ProducerCountsAtDebugWithAttr": {"producer: Producer job counts", slog.LevelDebug, "DEBUG"},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(routineHandler{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level})}).With("component", "tracking")
			log.InfoContext(context.Background(), tt.msg)
			got := buf.String()
			switch {
			case tt.want == "" && got != "":
				t.Fatalf("logged %q, want nothing", got)
			case tt.want != "" && (!strings.Contains(got, "level="+tt.want) || !strings.Contains(got, "component=tracking")):
				t.Fatalf("logged %q, want it at %s with its attributes", got, tt.want)
			}
		})
	}
}

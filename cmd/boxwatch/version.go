package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// runVersion prints the module version and the VCS revision the binary was built from.
func runVersion(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %q", args)
	}
	fmt.Fprintln(stdout, versionString())
	return nil
}

func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "boxwatch (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	out := "boxwatch " + v
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " commit " + rev
		if modified == "true" {
			out += "+modified"
		}
		if at != "" {
			out += " (" + at + ")"
		}
	}
	return out + ", " + info.GoVersion
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/boxwatch/boxwatch/client"
)

// runMap writes a container's map, the GeoJSON FeatureCollection of GET
// /v2/containers/{id}/map_geojson, to stdout or a file.
func runMap(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("map", getenv, stdin, stdout, stderr)
	var out string
	r.flags.StringVar(&out, "o", "", "write the GeoJSON to this file instead of standard output")
	pos, err := r.parse(args, "map CONTAINER_NUMBER|ID [-o FILE]", exactly(1))
	if err != nil {
		return helpOK(err)
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	box, err := findContainer(ctx, c, pos[0])
	if err != nil {
		return err
	}
	fc, err := c.ContainerMap(ctx, box.ID)
	if client.StatusOf(err) == 403 {
		return fmt.Errorf("the account may not use the map: %w", apiError(err))
	}
	if err != nil {
		return apiError(err)
	}
	if out == "" {
		_, err = fmt.Fprintf(stdout, "%s\n", fc)
		return err
	}
	// Written beside the target and renamed, so a failure never leaves half a file.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".boxwatch-map-*")
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(fc, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("-o: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	fmt.Fprintf(stderr, "map of %s written to %s\n", box.Number, out)
	return nil
}

#!/usr/bin/env bash
# Rebuilds data/rivers/fairways.json from GSHHG 2.3.7 as Debian ships it for GMT (gmt-gshhg-high:
# the high-resolution shorelines and the WDBII rivers, binned netCDF files), printed as CDL text
# by ncdump (netcdf-bin). Installs the two packages with scripts/apt-install.sh if they are
# missing. Reads data/land and data/ports; scripts/searoute.sh runs it between the ports' and the
# network's generators (the network joins the fairways).
# Needs go; the output is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=/usr/share/gmt-gshhg
if [ ! -r "$dir/binned_river_h.nc" ] || [ ! -r "$dir/binned_GSHHS_h.nc" ] || ! command -v ncdump >/dev/null; then
  scripts/apt-install.sh gmt-gshhg-high netcdf-bin
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ncdump "$dir/binned_river_h.nc" >"$tmp/rivers.cdl"
ncdump -v Bin_size_in_minutes,N_bins_in_360_longitude_range,Id_of_first_segment_in_a_bin,N_segments_in_a_bin,Embedded_npts_levels_exit_entry_for_a_segment,Id_of_first_point_in_a_segment,Relative_longitude_from_SW_corner_of_bin,Relative_latitude_from_SW_corner_of_bin \
  "$dir/binned_GSHHS_h.nc" >"$tmp/shores.cdl"
go run ./data/rivers/gen -rivers "$tmp/rivers.cdl" -shores "$tmp/shores.cdl" -out data/rivers
# GSHHG is LGPL-3+ (Debian's packaging GPL-3+): its copyright file and the licence texts go with
# the data derived from it.
cp /usr/share/doc/gmt-gshhg-high/copyright data/rivers/COPYRIGHT.gshhg
cp /usr/share/common-licenses/LGPL-3 data/rivers/LICENSE.LGPL-3
cp /usr/share/common-licenses/GPL-3 data/rivers/LICENSE.GPL-3

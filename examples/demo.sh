#!/bin/sh
# make demo: record the writeback example with the embedded default (no tool, no daemon),
# then show the first lines of the report and the counters that say how often the seed's
# condition skipped a hit.
set -e
O=${1:-build}
out=$O/writeback.dat
rm -f "$out"
echo "\$ TPOINT_EVENTS='writeback:*' TPOINT_RECORD=$out $O/examples/writeback"
TPOINT_EVENTS='writeback:*' TPOINT_RECORD=$out "$O/examples/writeback"
echo
echo "\$ $O/tpoint report $out | head -8"
"$O/tpoint" report "$out" | head -8
echo
echo "\$ $O/tpoint report $out | grep -m 4 DIRTY-SYNC    # the seed's event, flags decoded"
"$O/tpoint" report "$out" | grep -m 4 DIRTY-SYNC
echo
echo "\$ $O/tpoint report --stats $out"
"$O/tpoint" report --stats "$out"
echo
echo "The same file opens in trace-cmd report and KernelShark: trace-cmd report $out"

#!/bin/sh
# crc32c.sh: CRC32c for the threadless usrsctp type, the CPU's instruction (where it has one)
# and the table code (SCTPAPPS_CRC32C_SW), each against the same vectors.
. "$(dirname "$0")/../lib.sh"
run_tap "$top_builddir/test/unit/test_crc32c"
run_tap env SCTPAPPS_CRC32C_SW=1 "$top_builddir/test/unit/test_crc32c"
done_testing

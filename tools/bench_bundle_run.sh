#!/bin/sh
# run.sh of the bundle tools/bench_bundle makes: unpacks it into a temporary folder and runs tools/bench's
# whole-frame and thread rows there (tools/bench --prebuilt), writing the table to $OUT/bench.txt.
#
#   OUT=/some/folder ./run.sh [--quick]      (5 alternating rounds of each row; --quick: 3)
#
# Needs a POSIX shell, bash and python3 on the host; everything else (tbdrsim, Mesa llvmpipe's
# reference renderer, their libraries and glibc's loader) comes from the bundle.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"
out=${OUT:-$here/out}
mkdir -p "$out"
command -v python3 >/dev/null || { echo "run.sh: python3 missing on this machine" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tbdrsim_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$here/payload.tar.xz" "$work"
cp -r "$here/repo" "$work/"  # tools/bench and its scripts, the default trace
export __EGL_VENDOR_LIBRARY_FILENAMES="$work/share/glvnd/egl_vendor.d/50_mesa.json"
export LIBGL_DRIVERS_PATH="$work/lib/dri"
"$work/build/tbdrsim" --version >/dev/null || { echo "run.sh: the bundled tbdrsim does not start here" >&2; exit 1; }
corpus=""
[ -d "$work/corpus" ] && corpus="--corpus $work/corpus"
status=0
# shellcheck disable=SC2086  # $corpus and $quick: an option and its folder, or nothing
"$work/repo/tools/bench" --prebuilt "$work/build" $quick $corpus >"$out/bench.txt" 2>&1 || status=$?
cat "$out/bench.txt"
if [ "$status" != 0 ]; then echo "run.sh: tools/bench failed (exit $status); its output is in $out/bench.txt" >&2; exit "$status"; fi
echo "run.sh: the table is in $out/bench.txt"

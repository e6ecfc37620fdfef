#!/usr/bin/env bash
# ctest `install`: `cmake --install` into a staging folder (DESTDIR), the installed tree then moved to
# another folder, as a package is unpacked elsewhere: from there, in a fresh folder under /tmp,
# `tbdrsim run` simulates the bundled scene from PREFIX/share/tbdrsim (never the source or build tree),
# validate's help and the man page name no build-time path, the tools' links and the Python module
# work, and a binary copied away from its share/ folder fails with one line instead of reading the
# source tree.
#
#   tests/install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
failures=0
fail() { echo "install_test: FAIL: $*" >&2; failures=$((failures + 1)); }

scratch=$(mktemp -d /tmp/tbdrsim-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
DESTDIR="$scratch/stage" cmake --install "$build" --prefix /opt/tbdrsim >"$scratch/install.log" 2>&1 ||
  { cat "$scratch/install.log" >&2; echo "install_test: FAIL: cmake --install (build every target first)" >&2; exit 1; }
# Moved: nothing of the installed tree may depend on where it was installed.
prefix="$scratch/moved/tbdrsim"
mkdir -p "$scratch/moved"
mv "$scratch/stage/opt/tbdrsim" "$prefix"
rm -rf "$scratch/stage"

for f in bin/tbdrsim bin/rdc2trace bin/tbdrsim-capture share/man/man1/tbdrsim.1 share/bash-completion/completions/tbdrsim \
         share/tbdrsim/traces/default/scene.json share/tbdrsim/traces/validation/measurements.csv \
         share/tbdrsim/presets/mali-g76.json \
         share/tbdrsim/tools/rdc2trace share/doc/tbdrsim/README.md; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done
# Every JSON Schema (tests/schema_test.py checks them against the bundled files).
for schema in "$src"/traces/schema/*.schema.json; do
  [ -e "$prefix/share/tbdrsim/traces/schema/$(basename "$schema")" ] || fail "the install lacks traces/schema/$(basename "$schema")"
done
# Every Python module the tools import: tools/*.py and each package folder's modules.
for module in "$src"/tools/*.py "$src"/tools/*/__init__.py; do
  [ -e "$module" ] || continue
  package_dir=$(dirname "$module")
  if [ "$package_dir" = "$src/tools" ]; then files=$module; else files=$(ls "$package_dir"/*.py); fi
  for f in $files; do
    [ -e "$prefix/share/tbdrsim/tools/${f#"$src"/tools/}" ] || fail "the install lacks tools/${f#"$src"/tools/}"
  done
done
tbdrsim="$prefix/bin/tbdrsim"

# ---- run from a fresh folder under /tmp ------------------------------------------------------------
work="$scratch/work"
mkdir -p "$work"
(cd "$work" && "$tbdrsim" run --json report.json >run.txt) || fail "tbdrsim run from $work exited non-zero"
ls "$work"/out/*.png >/dev/null 2>&1 || fail "tbdrsim run wrote no image into $work/out"
python3 - "$work/report.json" "$prefix" <<'EOF' || fail "the report does not read the installed scene"
import json, sys
report = json.load(open(sys.argv[1]))
expected = sys.argv[2] + "/share/tbdrsim/traces/default/scene.json"
assert report["trace"] == expected, f"trace {report['trace']}, expected {expected}"
assert report["tbdrsim"]["version"].count(".") == 2, report["tbdrsim"]
EOF
grep -qF "$prefix/share/tbdrsim/traces/default/scene.json" "$work/run.txt" || fail "the text report names another scene"

# ---- no build-time path anywhere a user reads ---------------------------------------------------
for leaked in "$src" "$build"; do
  [[ $("$tbdrsim" validate --help) == *"$leaked"* ]] && fail "validate --help names $leaked"
  grep -qF "$leaked" "$prefix/share/man/man1/tbdrsim.1" && fail "the man page names $leaked"
  grep -aqF "$leaked/traces" "$tbdrsim" && fail "the binary carries the path $leaked/traces"
done
version=$("$tbdrsim" --version)
[[ "$version" =~ ^tbdrsim\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ .+\)$ ]] || fail "--version prints '$version'"
[[ $(MANWIDTH=100 man -l "$prefix/share/man/man1/tbdrsim.1" 2>/dev/null) == *"tbdrsim run"* ]] || fail "man -l cannot show the man page"

# ---- the tools through their links; the Python module finds the binary beside it --------------
# (the output read whole: grep -q would stop the pipe early, and pipefail count the SIGPIPE)
[[ $("$prefix/bin/rdc2trace" --help 2>&1) == usage:* ]] || fail "bin/rdc2trace --help (its modules from share/tbdrsim/tools)"
[[ $("$prefix/bin/tbdrsim-capture" --help 2>&1) == usage:* ]] || fail "bin/tbdrsim-capture --help"
python_dir=$(echo "$prefix"/lib/python3*/dist-packages)
(cd "$work" && env -u TBDRSIM PATH=/usr/bin:/bin PYTHONPATH="$python_dir" python3 -c "
import tbdrsim, sys
assert tbdrsim.binary() == sys.argv[1], tbdrsim.binary()
report = tbdrsim.run()
assert report['trace'].startswith(sys.argv[2]), report['trace']
" "$tbdrsim" "$prefix") || fail "python3 -c 'import tbdrsim; tbdrsim.run()' from the install"

# ---- a binary without its share/ folder says so ---------------------------------------------------
mkdir -p "$scratch/alone"
cp "$tbdrsim" "$scratch/alone/tbdrsim"
set +e
message=$(cd "$work" && "$scratch/alone/tbdrsim" run --no-images 2>&1 >/dev/null)
status=$?
set -e
[ $status -eq 1 ] || fail "a binary without share/tbdrsim exited $status, expected 1"
[[ "$message" == *"cannot find the bundled traces"* && $(wc -l <<<"$message") -eq 1 ]] ||
  fail "a binary without share/tbdrsim printed '$message'"

[ $failures -eq 0 ] || exit 1
echo "install_test: passed (installed, moved to $prefix, run from $work)"

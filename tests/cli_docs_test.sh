#!/usr/bin/env bash
# ctest `cli_docs`: the man page (build/tbdrsim.1, help2man at build time) documents every subcommand
# and option with the built commit, and the bash completion (tools/completion/tbdrsim.bash) completes
# subcommands, each subcommand's options, preset names and kinds.
#
#   tests/cli_docs_test.sh TBDRSIM SOURCE_DIR MAN_PAGE
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TBDRSIM SOURCE_DIR MAN_PAGE" >&2; exit 2; }
tbdrsim=$1
src=$2
page=$3
failures=0
fail() { echo "cli_docs_test: FAIL: $*" >&2; failures=$((failures + 1)); }

# ---- the man page ---------------------------------------------------------------------------------
[ -s "$page" ] || { echo "cli_docs_test: FAIL: no man page $page (built by the tbdrsim_man target)" >&2; exit 1; }
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null) || fail "man cannot format $page"
version=$("$tbdrsim" --version)
grep -qF "${version#tbdrsim }" "$page" || fail "the man page does not carry the version '$version'"
subcommands=$("$tbdrsim" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$subcommands" ] || fail "tbdrsim --help lists no subcommands"
for sub in $subcommands; do
  grep -qE "^   $sub\$" <<<"$text" || fail "the man page has no section for '$sub'"
  grep -qF "Usage: tbdrsim $sub " <<<"$text" || fail "the man page lacks the usage of '$sub'"
  for option in $("$tbdrsim" "$sub" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u); do
    grep -qF -- "$option" <<<"$text" || fail "the man page lacks '$sub $option'"
  done
done

# ---- bash completion ------------------------------------------------------------------------------
# shellcheck source=/dev/null
source "$src/tools/completion/tbdrsim.bash"
complete_words() {
  COMP_WORDS=("$tbdrsim" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _tbdrsim
  echo "${COMPREPLY[*]}"
}
expect() {
  local got
  got=$(complete_words "${@:2}")
  [ "$got" = "$1" ] || fail "completing '${*:2}': got '$got', expected '$1'"
}
expect "sweep sweep-merge" sw
expect "--version" --ver
expect "--json" run --js
expect "--jobs" sweep --jo
expect "mali-g710 mali-g76" run --preset mali
expect "tiling= tiling." sweep --vary til
for sub in $subcommands; do
  got=" $(complete_words "$sub" --) "
  for option in $("$tbdrsim" "$sub" --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | sed 's/^[ ,]//' | sort -u); do
    [[ "$got" == *" $option "* ]] || fail "'$sub --' does not complete '$option'"
  done
done

[ $failures -eq 0 ] || exit 1
echo "cli_docs_test: passed ($(wc -w <<<"$subcommands") subcommands)"

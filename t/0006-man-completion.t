#!/bin/sh
# 0006-man-completion.t - t32(1) and the bash completion know every command the
# binary's own table lists (t32 --list commands), every exit code and sweep
# column, and the completion offers commands, options, blocks, tables, recipes.
. "$(dirname "$0")/lib-tap.sh"

"$T32" --list commands >"$TMP/commands" 2>"$TMP/err" || { echo "1..1"; echo "not ok 1 - t32 --list commands"; exit 1; }
ncmd=$(wc -l <"$TMP/commands" | tr -d ' ')
plan $((2 * ncmd + 18))

sh "$T32_SRC/doc/t32.1.sh" "$T32" >"$TMP/t32.1" 2>"$TMP/man.err"
ok $? "the manual page is generated from the binary"
while IFS='	' read -r name summary; do
	grep -q "^\\.SS $name\$" "$TMP/t32.1"; ok $? "t32(1) has a section for '$name'"
done <"$TMP/commands"
"$T32" --list exit-codes | cut -f1 >"$TMP/codes"
missing=$(while read -r c; do grep -q "^\\.B $c\$" "$TMP/t32.1" || echo "$c"; done <"$TMP/codes")
is "" "$missing" "t32(1) names every exit code"
grep -q 'per_insn ci_lo ci_hi total' "$TMP/t32.1"; ok $? "t32(1) lists the sweep columns"
: >"$TMP/wide-help"
while IFS='	' read -r name summary; do
	"$T32" help "$name" 2>/dev/null | awk -v c="$name" 'length > 80 { print c ": " $0 }' >>"$TMP/wide-help"
done <"$TMP/commands"
"$T32" --help | awk 'length > 80 { print "t32: " $0 }' >>"$TMP/wide-help"
[ ! -s "$TMP/wide-help" ]; ok $? "every command's help fits 80 columns"
[ -s "$TMP/wide-help" ] && diag "$(head -3 "$TMP/wide-help")"
"$T32" --list flags | cut -f1 >"$TMP/flags"
missing=$(while read -r f; do grep -q "^\\.B $f\$" "$TMP/t32.1" || echo "$f"; done <"$TMP/flags")
[ -s "$TMP/flags" ] && [ -z "$missing" ]; ok $? "t32(1) explains every flag and status ($missing)"
if command -v groff >/dev/null 2>&1; then
	groff -man -Tascii -P-cbou -ww "$TMP/t32.1" >"$TMP/t32.txt" 2>"$TMP/groff.err"
	[ ! -s "$TMP/groff.err" ] && grep -q 'EXIT STATUS' "$TMP/t32.txt"
	ok $? "groff renders it without warnings"
	awk 'length > 80' "$TMP/t32.txt" >"$TMP/wide"
	[ ! -s "$TMP/wide" ]; ok $? "no line of the rendered page is wider than 80 columns"
	[ -s "$TMP/wide" ] && diag "$(head -3 "$TMP/wide")"
else
	skip "no groff here to render the page"
	skip "no groff here to render the page"
fi

command -v bash >/dev/null 2>&1 || { for i in $(seq $((ncmd + 11))); do skip "no bash here"; done; done_testing; }
{ mkdir -p "$TMP/bin" && ln -s "$T32" "$TMP/bin/t32"; } || bail "cannot put t32 on a PATH in $TMP/bin"
# complete WORDS...: what bash would offer for the last word
complete_() {
	PATH="$TMP/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _t32; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$T32_SRC/doc/t32.bash" "$@" 2>"$TMP/comp.err"
}
complete_ t32 "" >"$TMP/c-commands"
while IFS='	' read -r name summary; do
	grep -qx "$name" "$TMP/c-commands"; ok $? "completion offers '$name'"
done <"$TMP/commands"
complete_ t32 sw >"$TMP/c"
is sweep "$(cat "$TMP/c")" "a command completes from its start"
complete_ t32 sample "" >"$TMP/c"
grep -qx load-nop10 "$TMP/c"; ok $? "block names after sample"
complete_ t32 sweep "" >"$TMP/c"
grep -q 'coursework.tbl$' "$TMP/c"; ok $? "tables after sweep"
complete_ t32 sweep --mo >"$TMP/c"
is --mode "$(cat "$TMP/c")" "a command's options"
complete_ t32 sweep --format "" >"$TMP/c"
is tsv "$(cat "$TMP/c")" "only the formats the command writes"
complete_ t32 study "" >"$TMP/c"
grep -qx interrupts "$TMP/c"; ok $? "recipes after study"
complete_ t32 bench "" >"$TMP/c"
grep -qx coverage "$TMP/c"; ok $? "bench names after bench"
complete_ t32 help f >"$TMP/c"
grep -qx flags "$TMP/c"; ok $? "help completes flags"
complete_ t32 table "" >"$TMP/c"
grep -qx gen "$TMP/c" && grep -qx check "$TMP/c"; ok $? "table's subcommands"
complete_ t32 table gen --ua >"$TMP/c"
is --uarch "$(cat "$TMP/c")" "table gen's own options"
complete_ t32 model --uarch zen >"$TMP/c"
grep -qx zen4 "$TMP/c" && grep -qx zen5 "$TMP/c"; ok $? "micro-architecture names after --uarch"
done_testing

#!/bin/sh
# A sweep assembles its blocks once and measures them in one process, and its
# rows are the rows it made when each block was assembled alone and each
# placement had a process of its own (T32_ONE_BY_ONE=1): the same rows, keys and
# sweep line, each value within both intervals (with room for noise).  nasm is
# counted by a stand-in that logs each run, the processes (where strace is) by
# the forks.  A form nasm refuses still has its own rows, with nasm's reason.
. "$(dirname "$0")/lib-tap.sh"
plan 12

command -v nasm >/dev/null 2>&1 || skip_all "no nasm"
nasm=$(command -v nasm)
printf '#!/bin/sh\necho run >>"%s/nasm.log"\nexec "%s" "$@"\n' "$TMP" "$nasm" >"$TMP/nasm"
chmod +x "$TMP/nasm" || bail "cannot write the stand-in nasm"
printf 'imul | imul eax, eax | tp=imul {e}, {e}\nadd | add eax, 1 | tp=add {e}, 1\n' >"$TMP/t.tbl"
set -- --n 64,128 --mode latency --unit ticks --precision 0.05 --budget 0.3 --ignore-busy

: >"$TMP/nasm.log"
T32_NASM="$TMP/nasm" run sweep "$@" -o "$TMP/after.tsv" "$TMP/t.tbl"
# 5: every row written, some not ok (a busy machine)
{ [ "$rc" = 0 ] || [ "$rc" = 5 ]; }
ok $? "the sweep runs (exit $rc)"
after=$(wc -l <"$TMP/nasm.log")
: >"$TMP/nasm.log"
T32_ONE_BY_ONE=1 T32_NASM="$TMP/nasm" run sweep "$@" -o "$TMP/before.tsv" "$TMP/t.tbl"
{ [ "$rc" = 0 ] || [ "$rc" = 5 ]; }
ok $? "and one block at a time (exit $rc)"
before=$(wc -l <"$TMP/nasm.log")

# its four rows' blocks, twins and empty block: two nasm runs, not one a block
ok "$([ "$after" -le 2 ] && echo 0 || echo 1)" "nasm runs twice for the whole sweep ($after runs)"
ok "$([ "$before" -ge 5 ] && echo 0 || echo 1)" "where one block at a time ran it once a block ($before runs)"

grep '^# sweep:' "$TMP/after.tsv" >"$TMP/a.sig"
grep '^# sweep:' "$TMP/before.tsv" >"$TMP/b.sig"
ok "$([ -s "$TMP/a.sig" ] && cmp -s "$TMP/a.sig" "$TMP/b.sig" && echo 0 || echo 1)" "the same sweep line"
awk -F'\t' '!/^#/ {print $1, $2, $3, $4, $5, $6}' "$TMP/after.tsv" >"$TMP/a.keys"
awk -F'\t' '!/^#/ {print $1, $2, $3, $4, $5, $6}' "$TMP/before.tsv" >"$TMP/b.keys"
is 5 "$(wc -l <"$TMP/a.keys")" "a header and four rows"
ok "$(cmp -s "$TMP/a.keys" "$TMP/b.keys" && echo 0 || echo 1)" "the same rows: row, form, mode, n, k, unit"

# per_insn ci_lo ci_hi: apart by no more than both half-widths and a fifth of the value
paste "$TMP/after.tsv" "$TMP/before.tsv" | awk -F'\t' '
	/^#/ || $1 == "row" {next}
	{ n = NF / 2; a = $7; ha = ($9 - $8) / 2; b = $(n + 7); hb = ($(n + 9) - $(n + 8)) / 2
	  m = a > b ? a : b; d = a > b ? a - b : b - a
	  printf "%s n=%s: %.4f +- %.4f and %.4f +- %.4f\n", $2, $4, a, ha, b, hb
	  if (!(a > 0 && b > 0 && d <= ha + hb + 0.2 * m)) bad++ }
	END {exit bad > 0}' >"$TMP/cmp"
ok $? "each row's value within both intervals: $(tr '\n' ';' <"$TMP/cmp")"
awk -F'\t' '!/^#/ && $2 == "imul" {i += $7} !/^#/ && $2 == "add" {a += $7} END {exit !(i > 2 * a)}' \
	"$TMP/after.tsv"
ok $? "and the chains tell apart: imul costs more than twice add"

# a form nasm refuses: its own rows with nasm's reason, the others measured
printf 'bad | mov eax, rbx\nadd | add eax, 1\n' >"$TMP/bad.tbl"
run sweep --n 16 --mode latency --unit ticks --budget 0.05 --precision 1 -o "$TMP/bad.tsv" "$TMP/bad.tbl"
like "$TMP/bad.tsv" "^0	bad	latency	16	.*	(fault|error)		cannot assemble 'mov eax, rbx' \(nasm: " \
	"a form nasm refuses is a row with nasm's reason"
like "$TMP/bad.tsv" "^1	add	latency	16	1	ticks	[0-9.]+" "and the form after it is measured"

# the processes: one measuring process, not one a placement
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=clone,clone3,fork,vfork -e signal=none -o "$TMP/after.st" \
		"$T32" sweep "$@" -o "$TMP/a2.tsv" "$TMP/t.tbl" >/dev/null 2>&1
	T32_ONE_BY_ONE=1 strace -f -qq -e trace=clone,clone3,fork,vfork -e signal=none \
		-o "$TMP/before.st" "$T32" sweep "$@" -o "$TMP/b2.tsv" "$TMP/t.tbl" >/dev/null 2>&1
	a=$(grep -cE '(clone|fork)' "$TMP/after.st")
	b=$(grep -cE '(clone|fork)' "$TMP/before.st")
	ok "$([ "$a" -ge 1 ] && [ "$a" -le 5 ] && [ "$b" -ge $((4 * a)) ] && echo 0 || echo 1)" \
		"processes started: $a (two nasm runs, their helpers, one measuring process), $b one at a time"
else
	skip "no strace to count the processes"
fi
done_testing

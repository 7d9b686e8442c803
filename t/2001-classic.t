#!/bin/sh
# The classic form prints COUNT raw deltas, one a line; t32 time summarises.
. "$(dirname "$0")/lib-tap.sh"
plan 16

run l m 1000 100 'inc eax'
is 0 "$rc" "the classic form exits 0"
is 1000 "$(wc -l <"$TMP/out" | tr -d ' ')" "COUNT lines for COUNT measurements"
grep -Evc '^[0-9]+$' "$TMP/out" >"$TMP/bad"
is 0 "$(cat "$TMP/bad")" "every line is a whole number of ticks"
run mx r 5 1 'inc eax' 10 'add ebx, 1'
is 5 "$(wc -l <"$TMP/out" | tr -d ' ')" "C1 n C2 with barrier mx and stack store"
run x x 3 nop
is 3 "$(wc -l <"$TMP/out" | tr -d ' ')" "barrier x with the MMX store"
run n m 3 'mov rax, [rax]; nop; nop'
is 0 "$rc" "a pointer chase through the arena runs (registers point to themselves)"
run --init rdx=0 l m 3 'mov eax, 7; mov ecx, 3; div ecx'
is 0 "$rc" "--init rdx=0 makes div safe"

run time --format=tsv l m 2000 100 'inc eax'
measured "time --format=tsv exits 0"
like "$TMP/out" '^# tool: t32' "tsv starts with provenance lines"
like "$TMP/out" '^spec	n	unit	per_insn	ci_lo	ci_hi	estimate	twin_n	whole_per_insn	.*min_per_insn	runs	.*block_min_ticks' "tsv header names units"
is "100 2000" "$(col n "$TMP/out") $(col runs "$TMP/out")" "the tsv row holds n and runs"
run time l m 2000 100 'inc eax'
like "$TMP/out" '^per insn' "the table shows the per-instruction cost"

# a body that takes the first reading off the stack: deltas longer than the
# whole run are printed as read, and the result is untrustworthy
run l r 3 'pop rax'
is 7 "$rc" "impossible deltas exit 7"
is 3 "$(wc -l <"$TMP/out" | tr -d ' ')" "and are printed as read"
like "$TMP/err" "^t32: impossible deltas 'l r 1 'pop rax'' \(3 runs read longer than the whole measurement" \
	"naming the block and how many"
run l r 3 'push rax; pop rax'
is 0 "$rc" "a body that leaves the stack as it found it is fine"
done_testing

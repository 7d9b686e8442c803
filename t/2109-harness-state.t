#!/bin/sh
# What a body changes of the CPU's state for C code is put back after every run,
# in the block and in its empty twin: the direction flag, the x87 control word
# and its pending exceptions, the x87 stack, MXCSR.  A body that sets them runs
# and is measured; nothing after it is blamed on it.
. "$(dirname "$0")/lib-tap.sh"
plan 12

# DF set: glibc's memset in the measuring process would run backwards
run l m 1000 std
is 0 "$rc" "a body that sets the direction flag runs"
is 1000 "$(wc -l <"$TMP/out" | tr -d ' ')" "and gives every delta"
run sweep --n 10 --budget 0.2 -o "$TMP/std.tsv" l m std
st=$(col status "$TMP/std.tsv")
ok "$(case $st in ok|untrusted) echo 0 ;; *) echo 1 ;; esac)" "its sweep row is measured ($st)"

# the x87 control word unmasked, an exception left pending: the next run starts clean
run l m 3 'mov word [rsp-8], 0x0360; fldcw [rsp-8]; fld1; fldz; fdivp st1'
is 0 "$rc" "a body that unmasks x87 exceptions and leaves one pending runs every time"
is 3 "$(wc -l <"$TMP/out" | tr -d ' ')" "three deltas"

# an x87 stack filled run after run, a stack overflow unmasked: each run starts
# with the stack empty, so the ninth push never comes
run l m 5 'mov word [rsp-8], 0x037e; fldcw [rsp-8]' 4 fld1
is 0 "$rc" "a body that pushes the x87 stack without popping runs again and again"
is 5 "$(wc -l <"$TMP/out" | tr -d ' ')" "five deltas"

# MXCSR with every exception unmasked: the sampling process's own C code
# (floating-point timing of each chunk) runs after the loop
run sample --seconds 0.3 'mov dword [rsp-8], 0; ldmxcsr [rsp-8]'
ok "$([ "$rc" -eq 0 ] || [ "$rc" -eq 7 ] && echo 0 || echo 1)" "a body that unmasks SSE exceptions is sampled (exit $rc)"
if grep -q 'faulted' "$TMP/err"; then ok 1 "nothing after it faults"; sed 's/^/#   /' "$TMP/err"; else ok 0 "nothing after it faults"; fi

# the restoring is in the timed block and in its empty twin alike, outside the timing
run gen l m std
like "$TMP/out" '^	RESTORE_STATE' "the block restores the state after each run"
run gen --empty l m std
like "$TMP/out" '^	RESTORE_STATE' "and so does its empty twin"
awk '/^body_end:/ {b = 1} b && /rdtsc/ {r = NR} b && /^	RESTORE_STATE/ {s = NR} END {exit !(r && s > r)}' "$TMP/out"
ok $? "after the second reading of the clock"
done_testing

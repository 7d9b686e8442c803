#!/bin/sh
# The generator's output for each barrier and store kind: it assembles with nasm
# and holds what it must.
. "$(dirname "$0")/lib-tap.sh"
command -v nasm >/dev/null 2>&1 || skip_all "nasm is not installed"
plan 44

for b in m x l n mx lm; do
	run gen "$b" m 3 'inc eax'
	is 0 "$rc" "gen barrier $b exits 0"
	nasm -f bin -o "$TMP/b.bin" "$TMP/out" >"$TMP/nasm" 2>&1
	ok $? "barrier $b: the source assembles"
	case $b in
	m) like "$TMP/out" '^	BARRIER_M$' "barrier m: BARRIER runs BARRIER_M" ;;
	x) like "$TMP/out" '^	BARRIER_X$' "barrier x: BARRIER runs BARRIER_X" ;;
	l) like "$TMP/out" '^	BARRIER_L$' "barrier l: BARRIER runs BARRIER_L" ;;
	n) like "$TMP/out" '^	BARRIER_N$' "barrier n: BARRIER runs BARRIER_N" ;;
	mx) awk '/^%macro BARRIER 0/{on=1;next} on&&/%endmacro/{exit} on{print}' "$TMP/out" >"$TMP/seq"
	    is "BARRIER_M BARRIER_X" "$(tr -d '\t' <"$TMP/seq" | tr '\n' ' ' | sed 's/ $//')" "barrier mx: mfence then cpuid, in order" ;;
	lm) awk '/^%macro BARRIER 0/{on=1;next} on&&/%endmacro/{exit} on{print}' "$TMP/out" >"$TMP/seq"
	    is "BARRIER_L BARRIER_M" "$(tr -d '\t' <"$TMP/seq" | tr '\n' ' ' | sed 's/ $//')" "barrier lm: lfence then mfence, in order" ;;
	esac
done
for s in m r x; do
	run gen l "$s" 3 'inc eax'
	nasm -f bin -o "$TMP/s.bin" "$TMP/out" >"$TMP/nasm" 2>&1
	ok $? "store $s: the source assembles"
	S=$(echo "$s" | tr a-z A-Z)
	like "$TMP/out" "^	KEEP_$S\$" "store $s: the first reading is kept with KEEP_$S"
	like "$TMP/out" "^	DELTA_$S\$" "store $s: the delta comes from DELTA_$S"
done
run gen l m 7 'add ebx, 1' 2 'mov rax, [rax]; nop'
like "$TMP/out" "^; t32 block: l m 7 'add ebx, 1' 2 'mov rax, \[rax\]; nop'" "the header names the spec"
like "$TMP/out" '^	times 7 add ebx, 1$' "a repeat count of one instruction becomes times"
like "$TMP/out" '^%rep 2$' "a repeat count of several becomes %rep"
like "$TMP/out" '^	nop$' "';' separates instructions onto lines"
like "$TMP/out" '^	rdtsc$' "the block reads the TSC"
run gen --empty l m
nasm -f bin -o "$TMP/e.bin" "$TMP/out" >"$TMP/nasm" 2>&1
ok $? "the empty block assembles"
grep -c '^%rep' "$TMP/out" >"$TMP/n"
is 0 "$(cat "$TMP/n")" "the empty block has no body"
run gen --loop --unroll 4 n m 'mov rax, [rax]' 'nop'
nasm -f bin -o "$TMP/l.bin" "$TMP/out" >"$TMP/nasm" 2>&1
ok $? "the loop shape assembles"
like "$TMP/out" '^t32_loop:' "the loop shape defines t32_loop"
run gen --init 'rdx=0,rcx=0x10' l m nop
like "$TMP/out" 'mov rax, 0x10		; rcx \(--init\)' "--init sets a register's start value"
like "$TMP/out" 'lea rax, \[rdx \+ 0x81040\]	; rbx' "other registers point into the arena, a page and a line apart"

# a lone align or label cannot follow `times`: it is a %rep block, and runs
run l m 3 'align 16'
is 0 "$rc" "a lone align 16 runs"
run l m 3 4 'align 64'
is 0 "$rc" "repeated, too"
run l m 3 'here: nop'
is 0 "$rc" "a labelled instruction runs"
run gen l m 'align 16'
like "$TMP/out" '^%rep 1$' "as a %rep block"
# nor can a unit that is a `times` of its own: nasm would assemble
# `times 3 times 4 nop` as four nops, not twelve
run gen l m 3 'times 4 nop'
like "$TMP/out" '^%rep 3$' "a unit that is itself a times is a %rep block"
nasm -f bin -o "$TMP/t.bin" "$TMP/out" >"$TMP/nasm" 2>&1
ok $? "and assembles"
done_testing

#!/bin/sh
# Every bad input gets a clear error naming the instruction and signal, and its exit code.
. "$(dirname "$0")/lib-tap.sh"
plan 34


expect 1 "^t32: cannot assemble 'foo eax' \(nasm: " "unknown mnemonic" -- l m 10 'foo eax'
expect 1 "^t32: cannot assemble 'add eax, xmm0' \(nasm: invalid combination" "bad operands" -- l m 10 nop 'add eax, xmm0'
expect 1 "^t32: cannot assemble 'nop; bogus' \(nasm: " "misspelt second instruction" -- l m 10 'nop; bogus'
expect 1 "^t32: instruction faulted 'ud2' \(SIGILL" "ud2" -- l m 10 ud2
expect 1 "^t32: instruction faulted 'mov rax, \[0\]' \(SIGSEGV: invalid memory access at 0x0\)" "load from 0" -- l m 10 'mov rax, [0]'
expect 1 "^t32: instruction faulted 'xor ecx, ecx; div rcx' \(SIGFPE: integer divide by zero, at div rcx\)" "divide by zero" -- l m 10 'xor ecx, ecx; div rcx'
expect 1 "^t32: privileged instruction 'hlt' \(SIGSEGV" "hlt" -- l m 10 hlt
expect 1 "^t32: privileged instruction 'cli' \(SIGSEGV" "cli" -- l m 10 cli
expect 1 "^t32: privileged instruction 'rdmsr' \(SIGSEGV" "rdmsr" -- l m 10 rdmsr
expect 1 "^t32: block did not finish within 1 s 'jmp \\\$' \(stopped there by SIGALRM" "endless loop" -- --timeout 1 l m 10 'jmp $'
expect 2 "^t32: bad count '0'" "count 0" -- l m 0 nop
expect 2 "^t32: bad count '-5'" "negative count" -- l m -5 nop
expect 2 "^t32: bad count '4294967296'" "count past 2^32-1" -- l m 4294967296 nop
expect 2 "^t32: unknown barrier letter 'q'" "unknown barrier letter" -- lq m 10 nop
expect 2 "^t32: unknown store kind 'z'" "unknown store letter" -- l z 10 nop

# An instruction this CPU lacks: AMX, unless the CPU has it.
if grep -qw amx_tile /proc/cpuinfo 2>/dev/null; then
	skip "this cpu has AMX"
	skip "this cpu has AMX"
else
	expect 4 "^t32: not supported by this cpu 'tilerelease' \(SIGILL" "instruction this cpu lacks" -- l m 10 tilerelease
fi

# A faulting block in a sweep-like loop does not stop the good one after it.
: >"$TMP/sweep"
for insn in ud2 'imul rax, rax'; do
	"$T32" time --format=tsv l m 1000 100 "$insn" >>"$TMP/sweep" 2>>"$TMP/sweep.err"
done
like "$TMP/sweep" "^l m 100 'imul rax, rax'	100	cycles	" "a good block after a faulting one is still measured"
like "$TMP/sweep.err" "^t32: instruction faulted 'ud2'" "the faulting block's error is reported"
done_testing

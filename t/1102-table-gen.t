#!/bin/sh
# t32 table gen: a generated table is an ordinary table (provenance, unique names,
# read by the table reader), the exclusion rules hold whatever the CPU, chains and
# templates follow their rules, and sweeping it records what this CPU lacks as
# `unsupported` rows rather than failing.
. "$(dirname "$0")/lib-tap.sh"
plan 36

rows() { grep -c '^[0-9]' "$1"; }
field() { awk -F' *[|] *' -v n="$1" -v f="$2" '$1 == n { print $f }' "$3"; }
S="--n 840 --k-list 12 --budget 0.1 --block-precision 5 --precision 0.5"

# the whole table: NASM and capstone decide, not this CPU
"$T32" table gen -o "$TMP/full.tbl" --excluded "$TMP/excl.tsv" >"$TMP/out" 2>"$TMP/err"
is 0 "$?" "table gen writes the whole table"
n=$(grep -c '^[a-z0-9]' "$TMP/full.tbl")
[ "$n" -ge 1500 ]; ok $? "at least 1,500 forms ($n)"
like "$TMP/full.tbl" '^# source: instruction forms: capstone' "a # source: line"
like "$TMP/full.tbl" '^# applies to: ' "an # applies to: line"
like "$TMP/err" "^t32 table gen: $n forms " "the summary counts the forms written"
d=$(awk -F' *[|] *' '/^[a-z0-9]/ { print $1 }' "$TMP/full.tbl" | sort | uniq -d | head -3)
is "" "$d" "form names are unique"
# the table reader takes it: a sweep of its first row only loads all of it
"$T32" sweep $S --shard 1/100000 -o "$TMP/first.tsv" "$TMP/full.tbl" >"$TMP/out" 2>"$TMP/err"
rc=$?
swept "the table reader loads every line (t32 sweep)"

# rules: nothing that moves rsp, jumps, or is privileged is a form
bad=$(awk -F' *[|] *' '/^[a-z0-9]/ { print $2 }' "$TMP/full.tbl" |
	grep -Ec '^(push|pop|call|jmp|ret|syscall|hlt|cpuid|wrmsr|rdmsr|enter|leave|ldmxcsr|std|wrfsbase)( |$)|rsp|esp')
is 0 "$bad" "no form pushes, pops, jumps, traps, is privileged or names rsp"
like "$TMP/excl.tsv" '^push rax	reads or writes the stack pointer' "push is excluded by the stack rule"
like "$TMP/excl.tsv" '^jmp .*	changes control flow' "jmp by the control-flow rule"
like "$TMP/excl.tsv" '^wrmsr	privileged' "wrmsr by the privileged rule"
like "$TMP/full.tbl" '^inc-r64 ' "inc is a form: the rule's in names in alone, not what it begins"
like "$TMP/excl.tsv" '^ldmxcsr .*	changes state the harness relies on' "ldmxcsr by the state rule"
like "$TMP/excl.tsv" '^bt qword \[rsi\], rax	could address memory outside' "bt with a register offset by the address rule"

# chains and templates by rule
is "add rax, rbx" "$(field add-r64-r64 2 "$TMP/full.tbl")" "add r64, r64: the destination chains"
like "$TMP/full.tbl" '^add-r64-r64 .*[|] tp=add \{r\}, rbx$' "its copies rotate the destination"
is "popcnt rax, rax" "$(field popcnt-r64-r64 2 "$TMP/full.tbl")" "popcnt: the source made the destination"
like "$TMP/full.tbl" '^cmp-r64-r64 .*chain=none' "cmp writes only flags it does not read: throughput only"
like "$TMP/full.tbl" '^mov-r64-m64 +[|] mov rax, qword \[rax\]' "mov r64, m64 chases a pointer"
like "$TMP/full.tbl" '^div-r64 .*init=rax=0x7fffffffffffffff,rdx=0,rcx=1' "div gets a dividend and divisor that never fault"
like "$TMP/full.tbl" '^vaddps-zmm-zmm-zmm +[|] vaddps zmm0, zmm0, zmm2 .*tp=vaddps \{z\}, zmm1, zmm2' \
	"AVX-512 forms are kept whatever this CPU runs"

# chains by rule: what carries no dependency as written is built another way or says why not
like "$TMP/full.tbl" '^test-r32-i8 .*chain=none:flags' "test of an immediate writes only flags: no chain"
like "$TMP/full.tbl" '^kortestd-k-k .*chain=none:flags' "kortest writes only flags: no chain"
like "$TMP/full.tbl" '^btc-r64-r64 +[|] btc rax, rbx +[|] tp=' "btc writes its operand too: a chain (bt names bt alone)"
like "$TMP/full.tbl" '^cdq .*chain=none:unread' "cdq writes edx from eax: no chain"
like "$TMP/full.tbl" '^mov-r64-r64 +[|] mov rbx, rax; mov rax, rbx ' "a copy runs as two registers alternating"
like "$TMP/full.tbl" '^lea-r64-i8 .*chain=none:constant' "lea of a constant has no chain"
like "$TMP/full.tbl" '^vroundss-xmm-xmm-xmm-i8 +[|] vroundss xmm0, xmm0, xmm0, 5 ' \
	"a scalar operation chains through the lane it computes"
like "$TMP/full.tbl" '^vcvtsi2sd-xmm-xmm-r32 .*chain=none:merge' \
	"a scalar from another register file would chain only through a merge: none"
# no chain copies a register into itself or makes an idiom of one register in every source
self=$(awk -F' *[|] *' '/^[a-z0-9]/ && $3 !~ /chain=none/ { print $2 }' "$TMP/full.tbl" |
	grep -Ec '^v?(mov|movap[sd]|movup[sd]|movdq[au][0-9]*|movq|movs[sd]) ([a-z0-9]+), \2$|^lea [a-z0-9]+, ([a-z]+ )?\[[a-z0-9]+\]$')
is 0 "$self" "no chain is a register copied into itself"
idiom=$(awk -F' *[|] *' '/^[a-z0-9]/ && $3 !~ /chain=none/ { print $2 }' "$TMP/full.tbl" |
	awk -F'[ ,]+' '$1 ~ /^v?(p?xor|xorp|vpxor|p?andn|vpandn|p?sub|vpsub|p?cmpeq|p?cmpgt|vpcmpeq|vpcmpgt|kxn?or)/ &&
		NF >= 3 && $2 == $3 && (NF == 3 || $4 == $2)' | wc -l)
is 0 "$idiom" "no chain is an idiom with one register in every source"

# a sweep: every row is measured, skipped with its reason, or unsupported here
"$T32" table gen --only add,cmp,imul,pfadd -o "$TMP/small.tbl" >"$TMP/out" 2>"$TMP/err"
is 0 "$?" "--only makes a small table"
"$T32" sweep $S -o "$TMP/small.tsv" "$TMP/small.tbl" >"$TMP/out" 2>"$TMP/err"
rc=$?
swept "sweeping it succeeds, whatever this CPU lacks (exit 0, or 5 for rows not ok)"
# the status column found by its name in the header
odd=$(awk -F'\t' '$1 == "row" { for (i = 1; i <= NF; i++) if ($i == "status") c = i }
	/^[0-9]/ && $c !~ /^(ok|untrusted|nochain|skipped|unsupported)$/' "$TMP/small.tsv" | head -3)
is "" "$odd" "each row is ok, untrusted, nochain, skipped or unsupported"
like "$TMP/small.tsv" '	cmp-r64-r64	latency	840	.*	skipped		the form has no dependency chain \(chain=none: it writes only flags' \
	"a form without a chain says so in its latency row, with the reason"
if grep -qw 3dnow /proc/cpuinfo; then
	skip "this CPU has 3DNow!, so pfadd runs"
else
	n3=$(awk -F'\t' '$1 == "row" { for (i = 1; i <= NF; i++) if ($i == "status") c = i }
		/^[0-9]/ && $2 ~ /^pfadd/ && $c != "unsupported"' "$TMP/small.tsv" | wc -l)
	is 0 "$n3" "without 3DNow! every pfadd row is unsupported, recorded, not an error"
fi
done_testing

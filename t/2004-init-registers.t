#!/bin/sh
# --init sets vector and mask registers, loaded before every run: a divisor read
# from them divides by 3 when they hold it and faults (divide by zero) when they
# hold their default zero.
. "$(dirname "$0")/lib-tap.sh"
plan 12

# the divisor from REG, through rcx, into a 64-bit divide
div_by() { echo "$1; xor edx, edx; mov eax, 1; div rcx"; }

run l m 3 "$(div_by 'movq rcx, xmm5')"
is 1 "$rc" "xmm5 starts at zero: the divide faults"
like "$TMP/err" 'SIGFPE' "and says so"
run --init xmm5=3 l m 3 "$(div_by 'movq rcx, xmm5')"
is 0 "$rc" "--init xmm5=3: its low lane divides"
run --init ymm5=3 l m 3 "$(div_by 'vextracti128 xmm4, ymm5, 1; vpextrq rcx, xmm4, 1')"
is 0 "$rc" "--init ymm5=3: its top lane too"
run --init xmm5=1.5d l m 3 "$(div_by 'movq rcx, xmm5; shr rcx, 52')"
is 0 "$rc" "--init xmm5=1.5d: the lane holds the double 1.5 (exponent 0x3ff)"
run --init k3=3 l m 3 "$(div_by 'kmovw ecx, k3')"
if grep -q avx512f /proc/cpuinfo; then
	is 0 "$rc" "--init k3=3: the mask register"
	run --init zmm20=3 l m 3 "$(div_by 'vextracti64x4 ymm4, zmm20, 1; vextracti128 xmm4, ymm4, 1; vpextrq rcx, xmm4, 1')"
	is 0 "$rc" "--init zmm20=3: the top lane of a zmm above 15"
else
	is 4 "$rc" "--init k3=3 without AVX-512: not supported by this CPU"
	skip "no AVX-512 here for zmm20"
fi
# a value given to the register the body changes is loaded again for every run
run --init xmm5=3 l m 1000 "$(div_by 'movq rcx, xmm5')" 'pxor xmm5, xmm5'
is 0 "$rc" "the value is loaded again before every run"
run time --init xmm0=1.5d,xmm1=1d --format=tsv l m 100 50 'divsd xmm0, xmm1'
{ [ "$rc" = 0 ] || [ "$rc" = 7 ]; }
ok $? "time takes a vector set-up (exit $rc)"
like "$TMP/out" "--init xmm0=1.5d --init xmm1=1d" "and names it in the block's description"
expect 2 "unknown register 'ymm40'" "a register past 31" -- time --init ymm40=1d l m 3 nop
done_testing

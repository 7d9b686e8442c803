#!/bin/sh
# 5004-cmd-model - `t32 model` output shape on mov rax, [rax]; nop; nop: the chart,
# tsv and json, the curve, skid 0, and the exit codes of bad usage and bad input.

. "$(dirname "$0")/lib-tap.sh"

command -v nasm >/dev/null 2>&1 || skip_all "nasm is not installed"
[ -n "$T32_DATADIR" ] || { T32_DATADIR=$T32_SRC/data; export T32_DATADIR; }
plan 35

run model --help
is 0 "$rc" "model --help exits 0"

body='mov rax, [rax]; nop; nop'
run model --uarch skylake "$body"
is 0 "$rc" "model exits 0"
is "" "$(cat "$TMP/err")" "nothing on stderr"
like "$TMP/out" '^instruction +class +lat +from +alloc +ready +start +complete +retired +selected +weight +share$' \
	"the chart header names the columns"
is 3 "$(grep -c -e '^mov ' -e '^nop ' "$TMP/out")" "one row per instruction"
like "$TMP/out" '^mov rax, qword ptr \[rax\] +load .*<-- +4 ' "the load is selected, weight 4"
is "100.0%" "$(sed -n '/^mov/{n;p;}' "$TMP/out" | awk '{print $NF}')" \
	"all samples land on the nop after it"
like "$TMP/out" '^cycles per iteration: 4\.00$' "4 cycles per iteration (pointer chase)"

run model --uarch skylake --skid 0 "$body"
is "100.0%" "$(grep '^mov' "$TMP/out" | awk '{print $NF}')" "skid 0: the samples stay on the load"

run model --uarch skylake --format=tsv "$body"
is 0 "$rc" "tsv exits 0"
like "$TMP/out" "$(printf '^iter\tidx\tinsn\tclass\tlatency_cycles\tlatency_source\talloc_cycle\tready_cycle\tstart_cycle\tcomplete_cycle\tretire_cycle\tselected\tweight_cycles\tshare$')" \
	"tsv header with units in the names"
is 3 "$(grep -v '^#' "$TMP/out" | awk -F '\t' 'NR > 1 && NF == 14' | wc -l | tr -d ' ')" \
	"tsv: 3 rows of 14 fields"
like "$TMP/out" '^# cycles_per_iter: 4' "tsv provenance gives the cycles per iteration"

run model --uarch skylake --format=json "$body"
is 0 "$rc" "json exits 0"
like "$TMP/out" '"cycles_per_iter": 4,' "json gives the cycles per iteration"

run model --uarch skylake --curve=3 "$body"
is 4 "$(grep -c '^[0-9]' "$TMP/out")" "curve: k = 0..3"

run model --uarch skylake --set retire_width=1 "$body"
like "$TMP/out" '^cycles per iteration: 4\.00$' "--set retire_width=1: still 4 cycles (3 per 4)"

run model --uarch zen5 --set retire_group=2 add-2-1-1
is 0 "$rc" "a block name: exit 0"
is 4 "$(grep -c '^add ' "$TMP/out")" "add-2-1-1 is modelled as its unit of four adds"
like "$TMP/out" '^# zen5: alloc 8, retire 8 \(groups of 2\)' "the header names the retire group"
like "$TMP/out" '^add rax, 2 .* 100\.0%$' "pairs: every sample on the chain's second add"
run model data/blocks/no-such-block.blk
is 1 "$rc" "an unreadable block file: exit 1"
like "$TMP/err" "^t32: cannot read block file" "and says so"

run model
is 2 "$rc" "no instruction: exit 2"
like "$TMP/err" '^usage: t32 model' "no instruction: a usage line"
run model --uarch skylake --set no_such_key=1 nop
is 2 "$rc" "bad --set: exit 2"
run model --uarch skylake 'nop; add eax, rbx'
like "$TMP/err" "^t32: cannot assemble 'nop; add eax, rbx' \\(nasm: " \
	"nasm refuses: t32: cannot assemble, with nasm's words"

# --measure: the form timed here as a chain of itself, its latency so marked, and cached
T32_CACHE_DIR="$TMP/cache" run model --measure --format=tsv 'imul rax, rax; nop'
is 0 "$rc" "--measure exits 0"
# a timing too wide to use (a busy machine) leaves the form to the table, and says so
if grep -q '^t32: latencies: 1 form measured here' "$TMP/err"; then
	awk -F'\t' '!/^#/ && $3 ~ /^imul/ && $6 == "measured" && $5 >= 2 && $5 <= 4' "$TMP/out" | grep -q .
	ok $? "imul's latency measured here, 2 to 4 cycles (3 on the cores t32 knows)"
else
	awk -F'\t' '!/^#/ && $3 ~ /^imul/ && $6 == "table"' "$TMP/out" | grep -q .
	ok $? "imul left to the table where it could not be timed: $(grep latencies "$TMP/err")"
fi
like "$TMP/err" '^t32: latencies: (1 form measured here( \([^)]*\))?, 0 from the cache .*, 0|0 forms measured here, 0 from the cache .*, 1) left to the table' \
	"stderr says what was timed"
# kept unless timed on a shared CPU or core (the line says so)
grep -q '^t32: latencies: 1 form measured here' "$TMP/err" && ! grep -q 'not kept' "$TMP/err" &&
	shared=0 || shared=1
T32_CACHE_DIR="$TMP/cache" run model --measure 'imul rax, rax; nop'
if [ "$shared" = 1 ]; then
	skip "nothing was kept to reuse (the CPU was shared, or the timing too wide)"
else
	like "$TMP/err" '^t32: latencies: 0 forms measured here, 1 from the cache ' "a second run reuses it"
fi

# a row an older t32 timed another way (a lock add back to back) is timed again
# (each copy after a nop) and replaced, not reused
f=$(ls "$TMP/cache"/lat-*.tsv 2>/dev/null | head -n 1)
if [ -n "$f" ]; then
	printf 'lock add m64, i\tlock add qword [rbx], 1\tback-to-back\t6.3800\t0.0100\t2026-01-01\n' >>"$f"
	T32_CACHE_DIR="$TMP/cache" run model --measure 'lock add qword [rbx], 1; imul rax, rax'
	like "$TMP/err" '^t32: latencies: (1 form measured here( \([^)]*\))?, 1 from the cache|0 forms measured here, 1 from the cache .*, 1 left to the table)' \
		"the back-to-back row is not reused: the lock add is timed again"
	# kept unless the line says not (it may say the lock add was timed twice)
	if grep -q '^t32: latencies: 1 form measured here' "$TMP/err" && ! grep -q 'not kept' "$TMP/err"; then
		! grep -q 'back-to-back' "$f" && grep -q '^lock add m64, i	.*	spaced	' "$f"
		ok $? "and its row replaced by one timed after a nop"
	else
		skip "the lock add could not be kept (a shared CPU or a wide timing)"
	fi
else
	skip "no cache file to plant an old row in"
	skip "no cache file to plant an old row in"
fi

# a pure store is not timed (after a nop it costs its throughput at any latency
# short of the ROB's): its latency is the table's, in the model and the cache alike
# (the multiply's timing may be one not kept, on a core another thread shared)
T32_CACHE_DIR="$TMP/cache2" run model --measure 'mov qword [rbx+16], rcx; imul rax, rax'
like "$TMP/err" '^t32: latencies: (1 form measured here( \([^)]*\))?, 0 from the cache [^,]*, 0|0 forms measured here, 0 from the cache [^,]*, 1) left to the table' \
	"a block with a store: only the multiply is timed"
! grep -qs '^mov m64, r64' "$TMP/cache2"/lat-*.tsv
ok $? "and the cache keeps no row for the store"

done_testing

#!/bin/sh
# 5104-cmd-learn - `t32 learn --from DIR` on a recorded machine's blocks (the Zen 5
# recording in t/data/recorded): its parameter table and stored file, the model
# kept only where the probes are this CPU's unless --store says where, probes
# whose samples did not stay put left out (and let in with --allow-unstable),
# unreadable ones left out with a warning, bad usage; then `t32 correlate` on a
# recorded block predicting from the learned file, nothing fitted, and with
# --fit auto the per-block fit beside it.  Nothing is measured here.

. "$(dirname "$0")/lib-tap.sh"

command -v nasm >/dev/null 2>&1 || skip_all "nasm is not installed"
[ -n "$T32_DATADIR" ] || { T32_DATADIR=$T32_SRC/data; export T32_DATADIR; }
Z="$T32_SRC/t/data/recorded/zen5-turin-bhyve"
[ -d "$Z/more" ] || skip_all "no Zen 5 recording"

plan 74

run learn --from "$Z/more" --no-store --format=tsv
is 0 "$rc" "learn --from a recorded folder exits 0"
like "$TMP/out" '^# probes: 6$' "six probes learned from"
like "$TMP/out" '^retire_width	[0-9]+	[0-9]+	[0-9]+	[01]$' "the width with its interval"
like "$TMP/out" '^ports\.alu	' "the ALUs' starts a cycle learned"
like "$TMP/out" '^crc32-nop-add	0\.0[0-4]' "a probe the model explains is predicted within TVD 0.05"
cp "$TMP/out" "$TMP/first"
# the recording's twelve probes: the descent alone stops at retire_width 5; descending
# again from the documented width (8) while the rest move ends lower, at 11
run learn --from "$Z/probes" --no-store --format=tsv
like "$TMP/out" '^retire_width	11	' "Zen 5's probes: a parameter that left its start is tried there again (the width ends at 11, not 5)"
like "$TMP/out" '^retire_nop_free	0	0	' "Zen 5's probes: nops take slots of the width"
! grep -Eq '^(opcache_ops|decode_width)	' "$TMP/out"
ok $? "Zen 5's probes, none of them long enough to outgrow an op cache: no front-end key learned"
# nops_free DIR WHAT: the probes of DIR learn that nops take no retire slot, and
# predict load-nop20 (every sample on the nop after the load; in slots the twenty
# would fill three cycles) within TVD 0.05; the model learned is kept in
# $TMP/MACHINE.uarch
nops_free() {
	run learn --from "$1" --store "$TMP/$(basename "$(dirname "$1")").uarch" --format=tsv
	like "$TMP/out" '^retire_nop_free	1	1	1	1$' "$2: nops take no retire slot"
	like "$TMP/out" '^load-nop20	0\.0[0-4]' "$2: load-nop20 predicted within TVD 0.05"
}
nops_free "$T32_SRC/t/data/recorded/zen4-epyc-kvm-noavx512-quiet/probes" "the quiet Zen 4's probes"
# two multiply chains there put every sample on the second multiply: they complete
# together, so two start a cycle (one a cycle would put a third after the second)
like "$TMP/out" '^ports\.mul	[0-9]+	([2-9]|[1-9][0-9])	' "the multiplies a cycle learned, at least two"
like "$TMP/out" '^mul-pair	0\.0[0-4]' "and its mul-pair probe is predicted within TVD 0.05"
# its decode-xor probe ran 9 copies of 640 zero idioms at 6 a cycle and 10 at 4: the
# op cache held 5760 instructions and not 6400, and the decoders deliver 4 a cycle;
# the probe's speed is read over the copies the op cache holds, its samples not at all
like "$TMP/out" '^opcache_ops	(5888|6144)	(5888|6144)	(5888|6144)	[01]$' "the op cache learned between 5760 and 6400 instructions, in its own unit"
like "$TMP/out" '^decode_width	4	4	4	1$' "the decoders learned at 4 a cycle"
like "$TMP/out" '^decode-xor	-	-?[0-4]\.[0-9]+	-	' "decode-xor's speed from its copies in the op cache, within 5%, and its samples not judged"
# store-hold's store (its data there from the start) costs one copy as much as two
# (the closing fence waits for it to drain), and store-late-hold's (its data from
# the multiply) holds retirement about two of the three cycles: a drain of 5 that
# retirement does not wait for, and a retire delay of 1, told apart
like "$TMP/out" '^store_drain	5	5	5	1$' "a store drains 5 cycles before a fence passes it"
like "$TMP/out" '^retire_delay\.store	1	1	1	1$' "and holds retirement 1 cycle past its completion"
# store-after-add's store, of an add chain's result, never holds (every sample on it)
like "$TMP/out" '^store_bypass	1	1	1	1$' "a store of a one-cycle op's result retires with it"
like "$TMP/out" '^store-after-add	0\.0[0-4]' "and store-after-add is predicted within TVD 0.05"
# the same guest recorded again with its core 29% faster against the TSC (1.42 core
# cycles a tick, not 1.10): what the probes learn is counted in core cycles, so the
# same values come out (each step was converted with the ratio measured beside it)
cp "$TMP/out" "$TMP/quiet"
run learn --from "$T32_SRC/t/data/recorded/zen4-epyc-kvm-noavx512-3g7/probes" --no-store --format=tsv
for k in retire_width retire_group retire_group_flags retire_nop_free retire_delay.alu retire_delay.store \
	store_drain ports.alu decode_width alloc_width; do
	grep "^$k	" "$TMP/quiet"
done >"$TMP/want"
for k in retire_width retire_group retire_group_flags retire_nop_free retire_delay.alu retire_delay.store \
	store_drain ports.alu decode_width alloc_width; do
	grep "^$k	" "$TMP/out"
done >"$TMP/got"
[ "$(wc -l <"$TMP/got")" -eq 10 ] && cmp -s "$TMP/want" "$TMP/got"
ok $? "a faster core clock on the same Zen 4: the ten parameters learned alike, intervals and all"
like "$TMP/out" '^store-late-hold	0\.0[0-4]' "store-late-hold predicted within TVD 0.05"
# and a block no probe is, recorded there too (a multiply, a store of its result,
# two adds): predicted from those probes within TVD 0.05, where the retire delay
# of 5 the curve alone gave put every sample after the store (0.31)
Q="$T32_SRC/t/data/recorded/zen4-epyc-kvm-noavx512-quiet"
run correlate --learned "$TMP/zen4-epyc-kvm-noavx512-quiet.uarch" --from "$Q/more/imul-store-adds" --format=tsv \
	"$Q/more/imul-store-adds/block.blk"
like "$TMP/out" '^# tvd: 0\.0[0-4]' "a recorded store block the probes never saw, predicted within TVD 0.05"
# a busier hour on the same guest: the one pass that first weighs the probes met no
# value that fits load-nop20, and weighed it as a probe nothing fits; weighed again
# after the descent found one, the nops take no slot there too
nops_free "$T32_SRC/t/data/recorded/zen4-epyc-kvm-noavx512-busy2/probes" "a busier recording of the same Zen 4, weighed again"
keys=retire_width
for i in $(seq 2 25); do keys="$keys,retire_width"; done
expect 2 'more than 24 keys to learn at once' "--keys with more than it learns at once" -- \
	learn --from "$Z/more" --no-store --keys "$keys"
run learn --from "$Z/more" --no-store --format=tsv
grep -v '^# seconds' "$TMP/first" >"$TMP/a"
grep -v '^# seconds' "$TMP/out" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b"
ok $? "learning again gives the same parameters and predictions"
[ -e "$T32_CACHE_DIR"/model-*.uarch ]
ok $((! $?)) "--no-store keeps nothing in the cache"

# another CPU's probes: not kept unless --store names a file (this CPU is a Zen 4
# desktop part here, from its CPUID answers; then the Zen 5 the probes came from)
export T32_CPUID_FILE="$T32_SRC/t/cpuid/raphael-ryzen5-7600X.txt"
run learn --from "$Z/more"
is 0 "$rc" "learn (table) exits 0"
like "$TMP/out" '^not stored: the probes were recorded on another CPU' "another CPU's model is not kept as this one's"
T32_CPUID_FILE="$T32_SRC/t/cpuid/turin-oxide-bhyve.txt"
run learn --from "$Z/more"
like "$TMP/out" "^stored     $T32_CACHE_DIR/model-AuthenticAMD-1a-2-1" "on the CPU they were recorded on, it is kept in the cache"
rm -f "$T32_CACHE_DIR"/model-*.uarch
unset T32_CPUID_FILE
like "$TMP/out" '^  retire_group( =| undetermined)' "the table names each parameter"
run learn --from "$Z/more" --store "$TMP/z5.uarch"
is 0 "$rc" "--store FILE exits 0"
head -1 "$TMP/z5.uarch" >"$TMP/h"
like "$TMP/h" '^# t32 learned retirement model: one parameter set fitted to 6 probes' "the file says what it is"
like "$TMP/z5.uarch" '^# cpu: .*Turin' "with the CPU the probes were recorded on"
like "$TMP/z5.uarch" '^# learned: retire_width (= [0-9]+ \[[0-9]+, [0-9]+\]|undetermined)' "each parameter with its interval"
like "$TMP/z5.uarch" '^name = zen5$' "and every key as a .uarch file"
run model --no-measure --uarch "$TMP/z5.uarch" 'add eax, 1'
is 0 "$rc" "t32 model reads the learned file as micro-architecture data"

# correlate predicts from it
run correlate --no-measure --learned "$TMP/z5.uarch" --from "$Z/study/add-2-1-1" --format=tsv \
	"$T32_DATADIR/blocks/add-2-1-1.blk"
is 0 "$rc" "correlate --learned FILE --from DIR exits 0"
like "$TMP/out" '^# model: learned$' "it says the model is the learned one"
grep -q '^# fit: ' "$TMP/out"
ok $((! $?)) "and fits nothing to the block"
pred=$(sed -n 's/^# tvd: //p' "$TMP/out")
# and with the recording's latencies (measured on the Zen 5), not this machine's:
# nothing is timed here (the cache stays empty), and the line says whose they are
run correlate --learned "$TMP/z5.uarch" --cache "$TMP/lat-here" --from "$Z/study/load-add2" \
	--format=tsv "$T32_DATADIR/blocks/load-add2.blk"
like "$TMP/out" '^# latencies: 2 forms as measured where it was recorded ' \
	"--from DIR: the latencies are those the recording measured"
ok "$(ls "$TMP/lat-here" 2>/dev/null | grep -c '^lat-')" "and none is timed here"
run correlate --no-measure --learned "$TMP/z5.uarch" --fit auto --from "$Z/study/add-2-1-1" \
	--format=tsv "$T32_DATADIR/blocks/add-2-1-1.blk"
is 0 "$rc" "with --fit auto too"
fit=$(sed -n 's/^# fit_tvd: //p' "$TMP/out")
like "$TMP/out" '^# fit_significant: [01]$' "the fit's gain is judged"
awk -v p="$pred" -v f="$fit" 'BEGIN { exit !(f != "" && f + 0 <= p + 1e-9) }'
ok $? "the per-block fit is no worse than the prediction ($fit <= $pred)"
expect 2 'cannot read the learned model' "a learned model that is not there" -- \
	correlate --no-measure --learned "$TMP/none.uarch" --from "$Z/study/add-2-1-1" add-2-1-1
expect 2 'not a learned model' "a .uarch file that t32 learn did not write" -- \
	correlate --no-measure --learned "$T32_DATADIR/uarch/zen5.uarch" --from "$Z/study/add-2-1-1" add-2-1-1

# unstable and unreadable probes
cp -r "$Z/more" "$TMP/m"
sed -i '1a # stability: unstable (parts moved by 0.3)' "$TMP/m/six-adds/sample.tsv"
printf 'index\tinsn\n0\tnop\n' >"$TMP/m/xor-mix8/shares.tsv"
run learn --from "$TMP/m" --no-store --format=tsv
like "$TMP/out" '^# probes: 4$' "an unstable and an unreadable probe left out"
like "$TMP/err" "left out, its samples did not stay put .*six-adds" "the unstable one named"
run learn --from "$TMP/m" --no-store --allow-unstable --format=tsv
like "$TMP/out" '^# probes: 5$' "--allow-unstable lets it in"

mkdir "$TMP/empty"
expect 7 'no probe to learn from' "a folder without probes" -- learn --from "$TMP/empty" --no-store
expect 2 '--from and -o together' "--from and -o" -- learn --from "$Z/more" -o "$TMP/x"

# a probe measured here, in this process, as `correlate -o` measures a block
mkdir "$TMP/probes"
cp "$T32_DATADIR/blocks/add-2-1-1.blk" "$TMP/probes/"
run learn --measure-only --probes "$TMP/probes" -o "$TMP/mo" --seconds 1 --samples 200 \
	--cache "$TMP/c" --cpu 0
if [ "$rc" = 3 ]; then
	skip "no sampling backend here"; skip "no sampling backend here"
	skip "no sampling backend here"; skip "no sampling backend here"
	skip "no sampling backend here"
else
	like "$TMP/out" "^measured   1 blocks of .*/probes into .*/mo in [0-9.]+ s \(budget 40 s\)$" \
		"--measure-only: one probe measured, the time and the budget said"
	n=0
	for f in shares.tsv curve.tsv sample.tsv sweep.tsv; do
		[ -s "$TMP/mo/add-2-1-1/$f" ] && n=$((n + 1))
	done
	is 4 "$n" "its shares, curve, samples and sweep written into -o DIR/NAME"
	like "$TMP/mo/add-2-1-1/shares.tsv" '^# command: .*learn --measure-only' \
		"their provenance names the command that made them"
	like "$TMP/mo/add-2-1-1/sweep.tsv" '^# barrier: .*, cpu 0$' "--cpu 0: measured on CPU 0"
	like "$TMP/mo/add-2-1-1/sweep.tsv" '^# command: .*sweep .*--budget 0\.25 ' \
		"a budget with time to spare: each row of the curve has correlate's 0.25 s"
fi
# a budget of 2 s for the probe: a second set aside, the rows at their least
# (0.05 s each) and the sampling at its least (0.5 s of wall time), not --seconds 3
run learn --measure-only --probes "$TMP/probes" -o "$TMP/mb" --seconds 3 --samples 100000 \
	--budget 2 --cache "$TMP/c"
if [ "$rc" = 3 ]; then
	skip "no sampling backend here"; skip "no sampling backend here"
	skip "no sampling backend here"
else
	like "$TMP/mb/add-2-1-1/sweep.tsv" '^# command: .*sweep .*--budget 0\.05 ' \
		"--budget 2: each row of the curve stops at 0.05 s"
	# half a second of wall time, some of it without the sampler (under a second
	# on a host that stalls a chunk; --seconds 3 would sample about two)
	like "$TMP/mb/add-2-1-1/sample.tsv" '^# samples: [0-9]+ in 0\.[0-9]+ s' \
		"and the sampling at half a second"
	like "$TMP/err" 'warning: 1 probes take at least 2\.4 s, more than the budget of 2 s' \
		"a budget too small for the probes at their least is warned of"
fi
# a probe's curve the sweep mostly did not trust (0.1 ms a step: no step's interval
# narrows) is swept once more while the budget has room beside the probes left,
# as correlate sweeps it; a budget of 2 s has none
resweep() {
	run learn --measure-only --probes "$TMP/probes" -o "$TMP/$1" --seconds 1 --samples 200 \
		--step-seconds 0.0001 --budget "$2" --cache "$TMP/c"
	if [ "$rc" = 3 ]; then
		skip "no sampling backend here"
		return 1
	elif ! [ -s "$TMP/$1/add-2-1-1/curve.tsv" ]; then
		skip "the probe was not measured (exit $rc): $(head -c 120 "$TMP/err")"
		return 1
	elif grep -q '^# curve_sweeps: 1$' "$TMP/$1/add-2-1-1/curve.tsv" &&
		grep -q '^# curve_mostly_untrusted: 0$' "$TMP/$1/add-2-1-1/curve.tsv"; then
		skip "this machine trusted most steps of 0.1 ms: nothing to sweep again"
		return 1
	fi
}
resweep rs 40 && like "$TMP/rs/add-2-1-1/curve.tsv" '^# curve_sweeps: 2$' \
	"a budget with room: a mostly untrusted curve swept again"
resweep rn 2 && like "$TMP/rn/add-2-1-1/curve.tsv" '^# curve_sweeps: 1$' \
	"a budget without: swept once"
# bench learn: t32 learn here, as a user runs it, timed whole, then the study's blocks
# correlated with what it kept (a data folder of one probe and one study block, no
# recorded machines)
mkdir -p "$TMP/bdata/probes" "$TMP/bdata/blocks" "$TMP/norec"
for e in "$T32_DATADIR"/*; do
	case "$(basename "$e")" in probes|blocks) ;; *) ln -s "$e" "$TMP/bdata/" ;; esac
done
cp "$T32_DATADIR/probes/branch-mid.blk" "$TMP/bdata/probes/"
cp "$T32_DATADIR/blocks/branches.blk" "$TMP/bdata/blocks/"
T32_PLOTDIR=$T32_SRC/plots T32_DATADIR=$TMP/bdata T32_RECORDED_DIR=$TMP/norec "$T32" bench learn >"$TMP/out" 2>"$TMP/err" </dev/null
if grep -q 'no sampling backend here' "$TMP/out"; then
	skip "bench learn: no sampling backend here"
	skip "bench learn: no sampling backend here"
	skip "bench learn: no sampling backend here"
	skip "bench learn: no sampling backend here"
	skip "bench learn: no sampling backend here"
else
	like "$TMP/out" '^learn here: time to learn +[0-9.]+ s \(1 probes measured in [0-9.]+ s, fit [0-9.]+ s\) +<= 60 s' \
		"bench learn times t32 learn here, the measuring and the fit said"
	like "$TMP/out" '^learn here: probes doubted +[01] left out unstable, [01] with curves mostly untrusted ' \
		"and what of its probes the learn doubted"
	like "$TMP/out" '^learn here: probes within both targets +[01] of 1 ' \
		"and how many of them the model it learned predicts within both targets"
	like "$TMP/out" "^learn here: then the study's blocks +[01] of 1 within both \\([01] refused unstable, 0 failed, 0 not from the learned model; [0-9.]+ s a block\\) +1 of 1 " \
		"then the study's blocks correlated with the model it kept, as a user would"
	like "$TMP/out" "^learn here: study/branches +(TVD [0-9.]+, cpi [-+][0-9.]+% \\(curve \\+-[0-9.]+%\\)|refused: its samples did not stay put \\(exit 7\\)) +TVD <= 0\\.10, err <= 5% " \
		"each block's row: what it was predicted at, or why it was not"
fi
expect 2 "learn cannot write format 'json'" "--format=json: a usage error" -- \
	learn --format=json --from "$Z/more"
done_testing

#!/bin/sh
# t32 compare: sweeps of one table from two machines side by side.  The sweeps are
# written here by hand, so every number the comparison prints is known: machines
# named from their provenance, differences with the interval of the difference,
# significance, the published value and the share within tolerance of it, and the
# heat map and page of -o DIR.
. "$(dirname "$0")/lib-tap.sh"
plan 27

H='row	form	mode	n	k	unit	estimate	ci_lo	ci_hi	total	min_est	median_est	runs	seconds	flags	status	expected	reason'
{
	printf '# tool: t32 0.1\n'
	printf '# cpu: AMD EPYC 9654 (AuthenticAMD family 0x19 model 0x11 stepping 1 microcode 0xa101148), hypervisor KVMKVMKVM\n'
	printf '# host: lab1\n# date: 2026-01-01T00:00:00Z\n%s\n' "$H"
	printf '0\tadd\tlatency\t840\t1\tcycles\t1.0000\t0.9900\t1.0100\t840\t1\t1\t1000\t0.1\t-\tok\t1\t\n'
	printf '1\tadd\tthroughput\t840\t12\tcycles\t0.2500\t0.2450\t0.2550\t210\t0.25\t0.25\t1000\t0.1\t-\tok\t\t\n'
	printf '2\timul\tlatency\t840\t1\tcycles\t3.0000\t2.9900\t3.0100\t2520\t3\t3\t1000\t0.1\t-\tok\t3\t\n'
	printf '3\tpfadd\tlatency\t840\t\tcycles\t\t\t\t\t\t\t\t\t\tunsupported\t\tnot supported by this cpu\n'
} >"$TMP/a.tsv"
{
	printf '# tool: t32 0.1\n'
	printf '# cpu: 12th Gen Intel(R) Core(TM) i9-12900K (GenuineIntel family 0x6 model 0x97 stepping 2 microcode 0x2c, P-core)\n'
	printf '# host: lab2\n# date: 2026-02-01T00:00:00Z\n%s\n' "$H"
	printf '0\tadd\tlatency\t840\t1\tcycles\t1.0020\t0.9950\t1.0090\t840\t1\t1\t1000\t0.1\t-\tok\t1\t\n'
	printf '1\tadd\tthroughput\t840\t12\tcycles\t0.3333\t0.3300\t0.3366\t280\t0.33\t0.33\t1000\t0.1\t-\tok\t\t\n'
	printf '2\timul\tlatency\t840\t1\tcycles\t4.0000\t3.9800\t4.0200\t3360\t4\t4\t1000\t0.1\t-\tok\t3\t\n'
	printf '3\tpfadd\tlatency\t840\t1\tcycles\t4.0000\t3.9900\t4.0100\t3360\t4\t4\t1000\t0.1\t-\tok\t\t\n'
} >"$TMP/b.tsv"
val() { awk -F'\t' -v f="$1" -v m="$2" -v c="$3" '/^#/ {next} !h {for (i = 1; i <= NF; i++) k[$i] = i; h = 1; next}
	$1 == f && $2 == m { print $k[c] }' "$4"; }

run compare --format=tsv "$TMP/a.tsv" "$TMP/b.tsv"
is 0 "$rc" "two sweeps compare"
cp "$TMP/out" "$TMP/c.tsv"
like "$TMP/c.tsv" '^# machine m1: zen4 AMD EPYC 9654 on lab1 [|]' "m1 named by core, CPU and host from its provenance"
like "$TMP/c.tsv" '^# machine m2: goldencove 12th Gen Intel.* on lab2 [|]' "m2 likewise (another vendor's core)"
like "$TMP/c.tsv" '^form	mode	n	expected	m1_per_insn	m1_ci_lo	m1_ci_hi	m1_status	m2_per_insn.*	m2_minus_m1	m2_minus_m1_hw	m2_significant$' \
	"a column group per machine, then the differences"
is 4 "$(grep -c '^[a-z]' "$TMP/c.tsv" | awk '{print $1 - 1}')" "one row per form and mode"
is 0.0020 "$(val add latency m2_minus_m1 "$TMP/c.tsv")" "the difference of add's latency"
is 0.0122 "$(val add latency m2_minus_m1_hw "$TMP/c.tsv")" "its half-width combines both intervals"
is no "$(val add latency m2_significant "$TMP/c.tsv")" "within it: not significant"
is yes "$(val add throughput m2_significant "$TMP/c.tsv")" "0.25 against 0.33: significant"
is 1.0000 "$(val imul latency m2_minus_m1 "$TMP/c.tsv")" "imul: one cycle more on m2"
is 3 "$(val imul latency expected "$TMP/c.tsv")" "the published value beside it"
is unsupported "$(val pfadd latency m1_status "$TMP/c.tsv")" "a form m1 lacks keeps its status"
is - "$(val pfadd latency m2_significant "$TMP/c.tsv")" "and has no difference"
like "$TMP/c.tsv" '^# machine m1: .* 2 of 2 with a published value within 0.05 cycles' "m1 matches both published values"
like "$TMP/c.tsv" '^# machine m2: .* 1 of 2 with a published value within 0.05 cycles' "m2 one of two"

run compare --no-hostname --format=tsv "$TMP/a.tsv" "$TMP/b.tsv"
if grep -q 'lab1' "$TMP/out"; then ok 1 "--no-hostname leaves the host out"; else ok 0 "--no-hostname leaves the host out"; fi
run compare --differing "$TMP/a.tsv" "$TMP/b.tsv"
is "add throughput imul latency" "$(awk '$2 == "latency" || $2 == "throughput" { printf "%s%s %s", s, $1, $2; s = " " }' "$TMP/out")" \
	"--differing keeps the rows that differ, in table order"
run compare --format=json "$TMP/a.tsv" "$TMP/b.tsv"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{machines}[1]{core} eq "goldencove" && @{$j->{rows}} == 4 && $j->{rows}[1]{values}[1]{significant})' \
	<"$TMP/out"
ok $? "--format=json is JSON with the same machines, rows and verdicts"
run compare "$TMP/a.tsv" "$TMP/a.tsv"
like "$TMP/out" '^m2: zen4 AMD EPYC 9654 on lab1 \(m2, 2026-01-01' "the same machine twice is told apart"
like "$TMP/out" '^add +latency +840 +1 +1\.000 \+- 0\.010' "the table for people keeps n beside form and mode"

run compare -o "$TMP/dir" "$TMP/a.tsv" "$TMP/b.tsv"
is 0 "$rc" "-o DIR writes the comparison"
for f in compare.tsv compare.svg compare.png index.html; do
	[ -s "$TMP/dir/$f" ]; ok $? "$f written"
done
like "$TMP/dir/index.html" 'goldencove 12th Gen Intel' "the page names the machines"

printf 'not a sweep\n' >"$TMP/x.tsv"
run compare "$TMP/a.tsv" "$TMP/x.tsv"
like "$TMP/err" "^t32: not a t32 sweep '.*x.tsv'" "a file that is no sweep is refused with its name"
done_testing

#!/bin/sh
# The core t32 measures is the core it describes, end to end through the CLI:
# this machine's own CPUID against /proc/cpuinfo, then CPUID answers from
# recorded dumps (T32_CPUID_FILE) while the measuring still runs here.  On a
# hybrid part (an i9-12900K's P-core as CPU 0 and one of its E-cores as CPU 1)
# t32 env, the provenance lines of a result and the latency cache name the core
# of the CPU measured on: a P-core by default, an E-core with --cpu 1, and the
# two cores' timings go to two cache files.  A part with no data for its core
# (Tiger Lake) says so and times its forms in place; a dump that cannot be read
# is an error.
. "$(dirname "$0")/lib-tap.sh"
plan 32

D="$T32_SRC/t/cpuid"
# json FILE EXPR: a value of the JSON document in FILE (perl's JSON::PP)
# (true and false print as 1 and 0, null as null)
json() { perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $v = eval $ARGV[0];
	print defined $v ? $v : "null"' "$2" <"$1"; }

# this machine, as its own CPUID says and as Linux says
unset T32_CPUID_FILE
run env --format=json
is 0 "$rc" "t32 env here"
cp "$TMP/out" "$TMP/here.json"
vendor=$(awk -F': ' '/^vendor_id/ {print $2; exit}' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ {print $2; exit}' /proc/cpuinfo)
model=$(awk -F': ' '/^model[ \t]*:/ {print $2; exit}' /proc/cpuinfo)
is "$vendor $family $model" "$(json "$TMP/here.json" '"$j->{cpu}{vendor} $j->{cpu}{family} $j->{cpu}{model}"')" \
	"vendor, family and model are /proc/cpuinfo's"
if [ "$vendor $family $model" = "AuthenticAMD 25 17" ]; then
	is "zen4 detected" "$(json "$TMP/here.json" '"$j->{uarch}{name} $j->{uarch}{how}"')" \
		"this Zen 4 (family 0x19 model 0x11) is still detected as zen4"
else
	skip "not the Zen 4 EPYC (family 0x19 model 0x11) this check is for"
fi

# a Zen 4 desktop part from its dump
export T32_CPUID_FILE="$D/raphael-ryzen5-7600X.txt"
run env --format=json
is "AMD Ryzen 5 7600X 6-Core Processor/zen4/detected/0" \
	"$(json "$TMP/out" '"$j->{cpu}{brand}/$j->{uarch}{name}/$j->{uarch}{how}/$j->{cpu}{hybrid}"')" \
	"Ryzen 5 7600X from its dump: zen4, detected, not hybrid"

# a hybrid part: CPU 0 a P-core, CPU 1 an E-core
export T32_CPUID_FILE="$D/hybrid-2cpu-i9-12900K.txt"
# may this process run on CPUs 0 and 1?  (its allowed list, "0-3" or "0,1,4")
allowed=$(awk '/^Cpus_allowed_list/ {n = split($2, r, ","); for (i = 1; i <= n; i++) {
	split(r[i], b, "-"); hi = b[2] == "" ? b[1] : b[2]; for (c = b[1]; c <= hi; c++) if (c < 2) s += c + 1 }
	print s}' /proc/self/status)
if [ "$allowed" != 3 ]; then
	for i in $(seq 28); do skip "CPUs 0 and 1 are not both allowed here"; done
	done_testing
fi
run env --format=json
is 0 "$rc" "t32 env on the i9-12900K's answers"
cp "$TMP/out" "$TMP/p.json"
is "0/P-core/1/0/1" "$(json "$TMP/p.json" '"$j->{pinned_cpu}/$j->{cpu}{core_type}/$j->{cpu}{hybrid}/$j->{cpu}{p_cores}/$j->{cpu}{e_cores}"')" \
	"by default on the P-core (CPU 0, though CPU 1 is the last allowed); P- and E-cores listed"
is "goldencove/detected" "$(json "$TMP/p.json" '"$j->{uarch}{name}/$j->{uarch}{how}"')" "a P-core gets goldencove's data"
like "$TMP/p.json" '"cpu": "12th Gen Intel\(R\) Core\(TM\) i9-12900K \(GenuineIntel family 0x6 model 0x97 stepping 2, P-core\)"' \
	"the provenance's cpu names the core type"
run env --cpu 1 --format=json
cp "$TMP/out" "$TMP/e.json"
is "1/E-core/gracemont/detected" "$(json "$TMP/e.json" '"$j->{pinned_cpu}/$j->{cpu}{core_type}/$j->{uarch}{name}/$j->{uarch}{how}"')" \
	"--cpu 1: the E-core, with gracemont's data"
like "$TMP/e.json" '"core": "gracemont \(detected: GenuineIntel family 0x6 model 0x97, E-core\)"' \
	"the provenance's core line says E-core"
run env
like "$TMP/out" '^core type +P-core \(cpu 0\), a hybrid part: P-cores 0, E-cores 1$' "t32 env's table names the core type"
like "$TMP/out" '^uarch +goldencove \(detected: GenuineIntel family 0x6 model 0x97, P-core\)$' "and the data it chose"

# every provenance block names the core measured on
run time --format=tsv l m 200 100 nop
# exit 7 when a busy machine leaves too few readings: the provenance is written either way
[ "$rc" -eq 0 ] || [ "$rc" -eq 7 ]
ok $? "t32 time measures here under the recorded answers (exit $rc)"
like "$TMP/out" '^# cpu: 12th Gen Intel\(R\) Core\(TM\) i9-12900K \(GenuineIntel family 0x6 model 0x97 stepping 2, P-core\)$' \
	"# cpu: names the P-core"
like "$TMP/out" '^# core: goldencove \(detected: GenuineIntel family 0x6 model 0x97, P-core\)$' "# core: goldencove"
run time --cpu 1 --format=tsv l m 200 100 nop
like "$TMP/out" '^# cpu: .*stepping 2, E-core\)$' "--cpu 1: # cpu: names the E-core"
like "$TMP/out" '^# core: gracemont \(detected: .*, E-core\)$' "# core: gracemont"
like "$TMP/out" '^# barrier: l, store m, cpu 1$' "and the block ran on CPU 1"

# the latency cache: a file per core type, never mixed.  Rows timed on a CPU
# another task shares are not kept, so the files are written here by hand (as
# the cache writes them) and the model must read each core's own.
mkdir "$TMP/cache"
for core in p:P:3 e:E:5; do
	c=${core%%:*} t=${core#*:} t=${t%%:*} cyc=${core##*:}
	printf '# t32 latency cache
# cpu: GenuineIntel family 0x6 model 0x97 stepping 2 microcode unknown, %s-core (12th Gen Intel(R) Core(TM) i9-12900K)
form	text	how	cycles	halfwidth	date
imul r64, r64	imul rax, rax	chain	%s.0000	0.0100	2026-01-01
' \
		"$t" "$cyc" >"$TMP/cache/lat-GenuineIntel-6-97-2-${c}core.tsv"
done
run model --measure --cache "$TMP/cache" 'imul rax, rax'
is 0 "$rc" "t32 model --measure on the P-core"
like "$TMP/out" '^# uarch: goldencove \(detected: .*P-core\)' "the model uses goldencove's data"
like "$TMP/err" "^t32: latencies: 0 forms measured here, 1 from the cache .*/lat-GenuineIntel-6-97-2-pcore.tsv" \
	"and the P-core's cache file"
like "$TMP/out" '^imul rax, rax +mul +3 measured' "its imul at 3, as measured on the P-core"
run model --measure --cpu 1 --cache "$TMP/cache" 'imul rax, rax'
like "$TMP/out" '^# uarch: gracemont \(detected: .*E-core\)' "--cpu 1: the model uses gracemont's data"
like "$TMP/err" "^t32: latencies: 0 forms measured here, 1 from the cache .*/lat-GenuineIntel-6-97-2-ecore.tsv" \
	"and the E-core's cache file"
like "$TMP/out" '^imul rax, rax +mul +5 measured' "its imul at 5, as measured on the E-core"

# a core without data: said so, its forms timed here
export T32_CPUID_FILE="$D/tigerlake-i7-1165G7.txt"
run model --cache "$TMP/cache" 'imul rax, rax'
like "$TMP/out" '^# uarch: generic \(unknown: no data for willowcove; GenuineIntel family 0x6 model 0x8c; latencies are measured here\)$' \
	"Tiger Lake: no data for its core, said so"
like "$TMP/err" '^t32: latencies: [0-9]+ forms? measured here' "and its forms are timed here unasked"
run model --no-measure --cache "$TMP/cache" 'imul rax, rax'
is "" "$(grep 'latencies:' "$TMP/err")" "--no-measure: the generic table alone"

# a dump that cannot be read is an error, not silence
export T32_CPUID_FILE="$TMP/nosuch.txt"
expect 1 "^t32: cannot read the CPUID answers '.*nosuch.txt' \(No such file or directory\)$" "a missing dump" -- env
printf 'no answers here\n' >"$TMP/empty.txt"
export T32_CPUID_FILE="$TMP/empty.txt"
expect 1 "^t32: no CPUID answers in '.*empty.txt'" "a dump without CPUID lines" -- env
done_testing

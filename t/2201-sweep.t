#!/bin/sh
# t32 sweep: rows, faults as rows, Ctrl-C and --resume, shards and merge, n lists.
. "$(dirname "$0")/lib-tap.sh"
plan 29

S="--budget 0.05 --block-precision 5 --precision 1"
rows() { grep -c '^[0-9]' "$1"; }
keys() { grep '^[0-9]' "$1" | cut -f1-4 | sort; }

run sweep $S --n 1..10 -o "$TMP/full.tsv" l m 'inc eax'
swept "a spec sweep writes every row (exit 0, or 5 with rows not ok)"
is 10 "$(rows "$TMP/full.tsv")" "one row per n"
like "$TMP/full.tsv" '^# sweep: rows=10 ' "the sweep line names the rows"
like "$TMP/full.tsv" '^row	form	mode	n	k	unit	per_insn	ci_lo	ci_hi	total	' "columns with units"

# interrupted, then resumed: the same row set as the uninterrupted run
# Ctrl-C as a terminal sends it: to the whole process group, measuring child too
C="--budget 0.3 --block-precision 0 --precision 0"
interrupt "$TMP/cut.out" "$TMP/cut.err" sweep $C --n 1..10 -o "$TMP/cut.tsv" l m 'inc eax'
is 130 "$rc" "Ctrl-C stops the sweep with 130"
like "$TMP/cut.err" "interrupted: [0-9]+ rows written, resume with --resume" "and says how to resume"
printf '3\tpartial row with no newline' >>"$TMP/cut.tsv"
run sweep $C --budget 0.2 --n 1..10 -o "$TMP/cut.tsv" --resume l m 'inc eax'
is 1 "$rc" "resuming with another budget is refused"
like "$TMP/err" "^t32: the file holds a different sweep '.*cut.tsv' \(budget=0.3 there, 0.2 here\)" "and says what differs"
run sweep $C --n 1..10 -o "$TMP/cut.tsv" --resume l m 'inc eax'
swept "--resume finishes the sweep"
is "$(keys "$TMP/full.tsv")" "$(keys "$TMP/cut.tsv")" "resumed rows = uninterrupted rows"
grep -c 'partial row' "$TMP/cut.tsv" >"$TMP/n"
is 0 "$(cat "$TMP/n")" "a half-written row is dropped on resume"
run sweep $S --n 1..11 -o "$TMP/cut.tsv" --resume l m 'inc eax'
is 1 "$rc" "resuming another sweep into the file is refused"

# shards
for k in 1 2 3; do "$T32" sweep $S --n 1..10 --shard $k/3 -o "$TMP/s$k.tsv" l m 'inc eax' 2>/dev/null; done
run sweep --merge -o "$TMP/m.tsv" "$TMP/s1.tsv" "$TMP/s2.tsv" "$TMP/s3.tsv"
is 0 "$rc" "merging three shards"
is "$(keys "$TMP/full.tsv")" "$(keys "$TMP/m.tsv")" "merged rows = the whole sweep"
grep -q '^# shard:' "$TMP/s2.tsv" && ! grep -q '^# shard:' "$TMP/m.tsv"
ok $? "the merged file names no shard, as each piece did"
run sweep --merge -o "$TMP/m2.tsv" "$TMP/s1.tsv" "$TMP/s3.tsv"
like "$TMP/err" "^t32: the pieces lack 3 of 10 rows" "a missing shard is named"
run sweep --merge -o "$TMP/m2.tsv" "$TMP/s2.tsv" "$TMP/s3.tsv"
like "$TMP/err" "^t32: the pieces lack 4 of 10 rows" "the first shard missing too (row 0 with it)"
run sweep --merge -o "$TMP/m2.tsv" "$TMP/s1.tsv" "$TMP/s1.tsv"
like "$TMP/err" "^t32: row 0 appears twice" "a shard given twice is refused"

# a faulting block is a row with its reason, and the sweep goes on
printf 'bad | ud2\ngood | inc eax\n' >"$TMP/t.tbl"
run sweep $S --n 1,2 --mode latency -o "$TMP/t.tsv" "$TMP/t.tbl"
like "$TMP/t.tsv" "^[01]	bad	latency	[12]	.*	fault		instruction faulted 'ud2'" "a fault is a row with its reason"
like "$TMP/t.tsv" "^[23]	good	latency	[12]	1	cycles	-?[0-9.]+	.*	(ok	|untrusted	.+)" "and the good form after it is measured (trusted or not)"
run sweep --n 1..1e5/log:6 -o "$TMP/x.tsv" l m nop --budget 0.02 --precision 1 --block-precision 1000
like "$TMP/x.tsv" '^# sweep: .* n=1,10,100,1000,10000,100000$' "a log-spaced n list"

# twelve copies of a long throughput template are built whole, however long
# (30 statements, 12 copies: 4,700 bytes): the same instruction costs about the
# same per instruction as in a short template
long=$(printf 'mov {r}, 1; %.0s' $(seq 29))
printf 'short | mov rax, 1 | tp=mov {r}, 1\nlong | mov rax, 1 | tp=%smov {r}, 1\n' "$long" >"$TMP/long.tbl"
run sweep --n 2400 --mode throughput --k-list 12 --budget 0.3 --precision 0.02 -o "$TMP/long.tsv" "$TMP/long.tbl"
swept "a template of 30 statements, 12 copies, is swept"
# (a copy cut short reads cheaper; the long one may read dearer, where its
# copies no longer fit the core's decoded-instruction cache, as on Golden Cove)
awk -F'\t' '$2 == "short" {s = $7} $2 == "long" {l = $7}
	END {r = l / s; print r; exit !(s > 0 && r > 0.5)}' \
	"$TMP/long.tsv" >"$TMP/ratio"
ok $? "its cost per instruction is at least half the short template's ($(cat "$TMP/ratio") times): every copy whole"

# rows that are not ok: every row written, exit 5, the closing line counts them by status
printf 'add | add rax, 1 | tp=add {r}, 1\ncmp | cmp rax, rbx | tp=cmp {r}, rbx | chain=none\n' \
	>"$TMP/skip.tbl" || bail "cannot write $TMP/skip.tbl"
run sweep $S --n 10 --max-k 2 -o "$TMP/skip.tsv" "$TMP/skip.tbl"
is 5 "$rc" "a sweep with a skipped row exits 5"
is 4 "$(rows "$TMP/skip.tsv")" "and writes every row"
like "$TMP/err" "^t32 sweep: 4 rows written to .*skip.tsv in [0-9.]+ s: .*1 skipped.* \(exit 5; t32 help flags" \
	"the closing line counts the rows by status"
n=$(sed -n 's/^t32 sweep: .* s: \(.*\) (exit 5.*/\1/p' "$TMP/err" | tr ',' '\n' | awk '{s += $1} END {print s}')
is 4 "$n" "its counts add up to the rows written"

# a table by name from anywhere: its name in t32's data directory
mkdir "$TMP/else" || bail "cannot make $TMP/else"
( cd "$TMP/else" && "$T32" sweep $S --shard 1/100 --n 10 -o byname.tsv coursework.tbl ) \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
swept "a table named from another directory is found in the data directory"
like "$TMP/else/byname.tsv" "^# sweep: .* of=[^ ]*/coursework\.tbl " "and the sweep line names where it was found"
done_testing

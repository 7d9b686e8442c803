#!/bin/sh
# t32 sweep's files: counts and lines read back within bounds, pieces of another
# sweep refused, escaped fields, outputs that never replace their inputs, a lock
# against a second writer, a full or read-only disk that loses nothing.
. "$(dirname "$0")/lib-tap.sh"
plan 58

S="--budget 0.05 --block-precision 5 --precision 1"
rows() { grep -c '^[0-9]' "$1"; }
keys() { grep '^[0-9]' "$1" | cut -f1-4 | sort; }
# fields FILE: the field counts of its rows, each once
fields() { awk -F'\t' '/^[0-9]/ { print NF }' "$1" | sort -u; }
ESC=$(printf '\033')

# counts taken from a file are checked before they size anything
printf '# sweep: rows=-4\n' >"$TMP/neg.tsv"
run sweep --merge -o "$TMP/o.tsv" "$TMP/neg.tsv"
is 1 "$rc" "a negative row count is refused, not a crash"
like "$TMP/err" "^t32: bad row count in the sweep line of '.*neg.tsv'" "and named"
printf '# sweep: rows=99999999999999999999999 of=x\n0\tx\n' >"$TMP/big.tsv"
run sweep --merge -o "$TMP/o.tsv" "$TMP/big.tsv"
is 1 "$rc" "a row count past the limit is refused"
printf '# sweep: rows=16777217 of=x\n' >"$TMP/big.tsv"
run sweep --merge -o "$TMP/o.tsv" "$TMP/big.tsv"
like "$TMP/err" "^t32: bad row count in the sweep line of '.*big.tsv' \(0 to 16777216\)" \
	"one row past the limit of 2^24 is refused before anything is sized"
printf '# sweep: rows=4 of=x\n1\ta\tb\n' >"$TMP/short.tsv"
run sweep --merge -o "$TMP/o.tsv" "$TMP/short.tsv"
like "$TMP/err" "^t32: bad row in '.*short.tsv' \\(line 2\\)" "a row with too few fields is refused"
[ ! -e "$TMP/o.tsv" ]; ok $? "and no output is left behind"

# a file without newlines, a NUL, a directory: refused with a reason, in bounds
head -c 2000000 /dev/zero | tr '\0' a >"$TMP/long.tsv"
run sweep --merge -o "$TMP/o.tsv" "$TMP/long.tsv"
like "$TMP/err" "^t32: line 1 of '.*long.tsv' is longer than 1048576 bytes" "merge: an endless line is refused"
run fit "$TMP/long.tsv"
like "$TMP/err" "^t32: line 1 of '.*long.tsv' is longer than" "fit: an endless line is refused"
run sweep $S --n 1,2 --resume -o "$TMP/long.tsv" l m nop
like "$TMP/err" "^t32: line 1 of '.*long.tsv' is longer than" "resume: an endless line is refused"
run fit /dev/zero
like "$TMP/err" "^t32: a NUL byte in line 1 of '/dev/zero'" "fit: /dev/zero is not text"
printf 'n\ttotal\n1\t5\0000\n2\t6\n' >"$TMP/nul.tsv"
run fit "$TMP/nul.tsv"
like "$TMP/err" "^t32: a NUL byte in line 2 of '.*nul.tsv'" "fit: a NUL in a short line, not cut off there"
# an endless stream of rows (a FIFO fed by yes) stops at a bound, not at the end of memory
mkfifo "$TMP/fifo"
{ printf 'form\tn\ttotal\n'; yes "$(printf 'a\t1\t2')"; } >"$TMP/fifo" 2>/dev/null &
feeder=$!
run fit "$TMP/fifo"
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
like "$TMP/err" "^t32: more than 16777216 rows in '.*fifo'" "fit: an endless file of rows is refused"
run sweep --merge -o "$TMP/o.tsv" "$TMP"
like "$TMP/err" "^t32: cannot read '.*' \\(Is a directory\\)" "a directory as a piece says so"
run fit "$TMP/nowhere/x.tsv"
like "$TMP/err" "^t32: cannot read '.*x.tsv' \\(No such file or directory\\)" "a missing file gives the system's reason"

# a tab in the instruction text: escaped in every row, read back by merge and fit
TAB=$(printf 'add eax,\t1')
"$T32" sweep $S --n 1..4 --shard 1/2 -o "$TMP/t1.tsv" l m "$TAB" 2>/dev/null
rc=$?
swept "a spec holding a tab sweeps (shard 1/2)"
"$T32" sweep $S --n 1..4 --shard 2/2 -o "$TMP/t2.tsv" l m "$TAB" 2>/dev/null
rc=$?
swept "and shard 2/2"
is 19 "$(fields "$TMP/t1.tsv")" "its rows keep 19 fields"
grep -q "^# command: .*'add eax,\\\\t1'" "$TMP/t1.tsv"; ok $? "the command line holds the tab escaped"
run sweep --merge -o "$TMP/tm.tsv" "$TMP/t1.tsv" "$TMP/t2.tsv"
is 0 "$rc" "the pieces merge"
is 4 "$(rows "$TMP/tm.tsv")" "into the whole sweep"
run fit --format=tsv "$TMP/tm.tsv"
is 0 "$rc" "t32 fit reads t32's own TSV back"
like "$TMP/out" "^l m n 'add eax,\\\\t1'	raw	4	0	" "one group, its name escaped again in fit's TSV"
# a backslash in it: escaped too, and read back as itself, not as a tab
run sweep $S --n 1..2 -o "$TMP/bs.tsv" l m "mov eax, '\\t'"
run fit --format=tsv "$TMP/bs.tsv"
like "$TMP/out" '^l m n .mov eax, .\\\\t..	raw	2	' "a backslash in the text is written and read back as itself"

# pieces of different sweeps: anything that decides a row's value is in the sweep line
"$T32" sweep $S --n 1..4 --shard 1/2 -o "$TMP/p1.tsv" l m nop 2>/dev/null
"$T32" sweep --budget 0.05 --block-precision 5 --precision 2 --n 1..4 --shard 2/2 -o "$TMP/p2.tsv" l m nop 2>/dev/null
run sweep --merge -o "$TMP/o.tsv" "$TMP/p1.tsv" "$TMP/p2.tsv"
like "$TMP/err" "^t32: '.*p2.tsv' is a piece of another sweep \\(precision=2 there, 1 here\\)" "another precision is another sweep"
"$T32" sweep $S --init rbx=5 --n 1..4 --shard 2/2 -o "$TMP/p3.tsv" l m nop 2>/dev/null
run sweep --merge -o "$TMP/o.tsv" "$TMP/p1.tsv" "$TMP/p3.tsv"
like "$TMP/err" "another sweep \\(init=rbx=0x5 there, - here\\)" "another --init is another sweep"
"$T32" sweep $S --n 1..4 --shard 2/3 -o "$TMP/p4.tsv" l m nop 2>/dev/null
run sweep --merge -o "$TMP/o.tsv" "$TMP/p1.tsv" "$TMP/p4.tsv"
like "$TMP/err" "another sweep \\(shards=3 there, 2 here\\)" "another shard count is another sweep"
# a long --n list: one row measured of each, the lists differing in the last value
"$T32" sweep $S --n 1..400 --shard 1/400 -o "$TMP/l1.tsv" l m nop 2>/dev/null
"$T32" sweep $S --n 1..399,401 --shard 2/400 -o "$TMP/l2.tsv" l m nop 2>/dev/null
run sweep --merge -o "$TMP/o.tsv" "$TMP/l1.tsv" "$TMP/l2.tsv"
like "$TMP/err" "another sweep \\(n=1,2,\\.\\.\\.,401 \\(400 values, fnv1a64 [0-9a-f]+\\) there" "a long n list is named by its ends and a hash"
run sweep $S --n 1..4 --shard 2/2 --resume -o "$TMP/p1.tsv" l m nop
like "$TMP/err" "^t32: the file holds another shard '.*p1.tsv' \\(shard: 1/2 there, shard: 2/2 here\\)" "resume: another shard is refused"

# -o never names an input
printf 'inc | inc eax\n' >"$TMP/in.tbl"
cp "$TMP/in.tbl" "$TMP/in.orig"
run sweep $S --n 1 -o "$TMP/in.tbl" "$TMP/in.tbl"
is 2 "$rc" "sweep -o naming the table is refused"
cmp -s "$TMP/in.tbl" "$TMP/in.orig"; ok $? "and the table is untouched"
cp "$TMP/t1.tsv" "$TMP/t1.orig"
run sweep --merge -o "$TMP/t1.tsv" "$TMP/t1.tsv" "$TMP/t2.tsv"
like "$TMP/err" "^t32: the output is one of the pieces '.*t1.tsv'" "merge -o naming a piece is refused"
cmp -s "$TMP/t1.tsv" "$TMP/t1.orig"; ok $? "and the piece is untouched"

# a second writer to a sweep file is refused while the first holds its lock
"$T32" sweep --budget 0.3 --precision 0 --block-precision 0 --n 1..40 -o "$TMP/busy.tsv" l m nop 2>"$TMP/busy.err" &
busy=$!
for i in 1 2 3 4 5 6 7 8 9 10; do grep -q '^row' "$TMP/busy.tsv" 2>/dev/null && break; sleep 0.2; done
run sweep $S --n 1..40 -o "$TMP/busy.tsv" l m nop
is 1 "$rc" "a second sweep on the same -o is refused"
like "$TMP/err" "^t32: another t32 is writing '.*busy.tsv' \\(the file is locked\\)" "with a clear message"
run sweep $S --n 1..40 --resume -o "$TMP/busy.tsv" l m nop
like "$TMP/err" "^t32: another t32 is writing" "and so is a second --resume"
run sweep --merge -o "$TMP/busy.tsv" "$TMP/t1.tsv" "$TMP/t2.tsv"
like "$TMP/err" "^t32: another t32 is writing" "and a merge into it"
kill -INT $busy
wait $busy
is 130 "$?" "the first sweep stops on Ctrl-C as usual"
grep -q '^# sweep: ' "$TMP/busy.tsv"; ok $? "its rows are its own"

# an existing file is replaced whole: never truncated first
cp "$TMP/tm.tsv" "$TMP/keep.tsv"
run sweep $S --n 1..3 -o "$TMP/keep.tsv" l m nop
swept "a sweep over an existing file"
is 3 "$(rows "$TMP/keep.tsv")" "replaces it with the new rows"
ls -A "$TMP" >"$TMP/ls"
grep -q 't32-' "$TMP/ls"; is 1 "$?" "and leaves no temporary file"

# a full disk and a read-only one: the old file stays, the reason is the system's
if [ "$(id -u)" != 0 ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do skip "mounting a small tmpfs needs root"; done
elif ! mkdir "$TMP/full" || ! mount -t tmpfs -o size=1m tmpfs "$TMP/full" 2>"$TMP/mount.err"; then
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do skip "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"; done
else
	trap 'umount "$TMP/full" 2>/dev/null; rm -rf "$TMP"' EXIT
	F=$TMP/full
	cp "$TMP/tm.tsv" "$F/m.tsv" && cp "$TMP/tm.tsv" "$F/s.tsv"
	dd if=/dev/zero of="$F/filler" bs=4k count=256 2>/dev/null
	run sweep --merge -o "$F/m.tsv" "$TMP/t1.tsv" "$TMP/t2.tsv"
	is 1 "$rc" "merge on a full disk fails"
	like "$TMP/err" "^t32: cannot write '.*m.tsv' \\(No space left on device\\)" "with the system's reason"
	cmp -s "$F/m.tsv" "$TMP/tm.tsv"; ok $? "and the old output is left whole"
	run sweep $S --n 1..4 -o "$F/s.tsv" l m nop
	is 1 "$rc" "a sweep over a file on a full disk fails"
	like "$TMP/err" "^t32: cannot write '.*s.tsv' \\(No space left on device\\), the file is left as it was" "and says the file is kept"
	cmp -s "$F/s.tsv" "$TMP/tm.tsv"; ok $? "which it is"
	ls -A "$F" >"$TMP/ls"
	is "filler m.tsv s.tsv" "$(echo $(cat "$TMP/ls"))" "no temporary file is left"
	# room for the header and a few rows: the disk fills mid-sweep
	rm -f "$F/filler" "$F/m.tsv" "$F/s.tsv"
	dd if=/dev/zero of="$F/filler" bs=4k count=255 2>/dev/null
	run sweep $S --n 1..200 -o "$F/mid.tsv" l m nop
	is 1 "$rc" "a disk filling mid-sweep stops the sweep"
	like "$TMP/err" "^t32: cannot write '.*mid.tsv' \\(No space left on device\\), [0-9]+ rows written: resume with --resume" "with the system's reason, not ENOTTY"
	tail -c 1 "$F/mid.tsv" >"$TMP/last"
	is "" "$(tr -d '\n' <"$TMP/last")" "the file ends with a whole row"
	rm -f "$F/filler"
	run sweep $S --n 1..200 --resume -o "$F/mid.tsv" l m nop
	swept "with room again, --resume finishes it"
	is 200 "$(rows "$F/mid.tsv")" "every row once"
	# read-only
	rm -f "$F/mid.tsv"
	cp "$TMP/tm.tsv" "$F/m.tsv"
	if mount -o remount,ro "$F" 2>/dev/null; then
		run sweep --merge -o "$F/m.tsv" "$TMP/t1.tsv" "$TMP/t2.tsv"
		like "$TMP/err" "^t32: cannot write '.*m.tsv' \\(Read-only file system\\)" "a read-only directory gives the reason"
		run sweep $S --n 1 -o "$F/new.tsv" l m nop
		like "$TMP/err" "^t32: cannot write '.*new.tsv' \\(Read-only file system\\)" "and so does a sweep into it"
		cmp -s "$F/m.tsv" "$TMP/tm.tsv"; ok $? "the old file stays"
	else
		for i in 1 2 3; do skip "cannot remount the tmpfs read-only"; done
	fi
	umount "$F"
fi

# control bytes of arguments are not echoed to the terminal
run fit "$TMP/x${ESC}[2Jy.tsv"
grep -q "$ESC" "$TMP/err"; is 1 "$?" "no raw escape byte in the message"
like "$TMP/err" "x\\\\x1b\\[2Jy.tsv" "it is shown escaped"
done_testing

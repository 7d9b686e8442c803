#!/bin/sh
# nasm is on a leash: a time limit (--timeout), no stdin, its own process group,
# killed with t32 however t32 ends, and no temporary file left in $TMPDIR.
. "$(dirname "$0")/lib-tap.sh"
plan 20

ZERO='nop; %include "/dev/zero"'	# nasm reads it forever
mkdir "$TMP/tmpdir" || bail "cannot make $TMP/tmpdir"

# empty DIR: no file or directory left in it
empty() {
	[ -z "$(ls -A "$1")" ]
}

# child_of PID: the pids whose parent is PID (from /proc, no name matching)
child_of() {
	for s in /proc/[0-9]*/stat; do
		[ -r "$s" ] || continue
		set -- "$1" $(sed 's/.*) //' "$s" 2>/dev/null)
		[ "${3:-}" = "$1" ] && basename "$(dirname "$s")"
	done
}

# running PID: PID exists and is not a zombie (a zombie is dead, waiting to be reaped)
running() {
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ]
}

# wait_nasm PID: print t32's nasm child once it runs (up to 5 s)
wait_nasm() {
	i=0
	while [ $i -lt 50 ]; do
		for c in $(child_of "$1"); do
			[ "$(cat "/proc/$c/comm" 2>/dev/null)" = nasm ] && { echo "$c"; return 0; }
		done
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# The time limit: a sweep of two rows ends in about twice --timeout, each row named.
t0=$(date +%s)
TMPDIR="$TMP/tmpdir" timeout -s KILL 60 "$T32" sweep --raw-nasm --timeout 2 --n 1,2 l m "$ZERO" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(date +%s)
is 5 "$rc" "a sweep whose nasm never ends finishes, exit 5: its rows are faults"
ok $(( t1 - t0 <= 12 ? 0 : 1 )) "within the limit: $((t1 - t0)) s for two rows of 2 s"
like "$TMP/err" "^t32: cannot assemble 'nop; %include \"/dev/zero\"' \(nasm did not finish within 2 s and was killed; --timeout S allows longer\)" \
	"the message names the body, the limit and the option"
like "$TMP/out" "	fault		cannot assemble .*did not finish within 2 s" "the row says so"
empty "$TMP/tmpdir"
ok $? "no temporary file left in TMPDIR"

# A body that asks nasm for 16 GiB: nasm stops at its 2 GiB memory limit, named,
# or, on a machine slow to hand it memory, at its time limit first, named
T32_DATADIR="$T32_SRC/data" TMPDIR="$TMP/tmpdir" "$T32" model 'resb 1<<34' \
	>"$TMP/out" 2>"$TMP/err"
is 1 "$?" "nasm asked for 16 GiB fails"
like "$TMP/err" "^t32: cannot assemble 'resb 1<<34' \((nasm: out of memory|nasm did not finish within 10 s)" \
	"at its memory limit or its time limit, said so"

# TMPDIR is where the temporary files go
TMPDIR="$TMP/nonexistent" "$T32" gen --elf -o "$TMP/x.elf" l m nop >"$TMP/out" 2>"$TMP/err"
is 1 "$?" "an unusable TMPDIR is an error"
like "$TMP/err" "cannot make a temporary file in '$TMP/nonexistent' \\(No such file" "naming TMPDIR"

# gen --elf still assembles and links through the unlinked files
TMPDIR="$TMP/tmpdir" "$T32" gen --elf --iterations 1000 -o "$TMP/x.elf" l m 'add eax, 1' \
	>"$TMP/out" 2>"$TMP/err" && "$TMP/x.elf"
is 0 "$?" "gen --elf builds a program that runs"

# SIGTERM while nasm runs: nasm is killed, t32 ends at once, nothing left behind
TMPDIR="$TMP/tmpdir" "$T32" time --raw-nasm l m 10 "$ZERO" >"$TMP/out" 2>"$TMP/err" &
pid=$!
nasm=$(wait_nasm $pid)
ok $? "t32 time runs nasm ($nasm)"
kill -TERM $pid
wait $pid
rc=$?
ok $(( rc == 130 || rc == 143 ? 0 : 1 )) "SIGTERM ends t32 (exit $rc)"
sleep 0.2
! running "$nasm"
ok $? "and its nasm with it"
empty "$TMP/tmpdir"
ok $? "no temporary file left in TMPDIR"

# SIGKILL: t32 cannot clean up, so nasm dies by its parent-death signal
T32_DATADIR="$T32_SRC/data" TMPDIR="$TMP/tmpdir" "$T32" model --raw-nasm "$ZERO" >"$TMP/out" 2>"$TMP/err" &
pid=$!
nasm=$(wait_nasm $pid)
ok $? "t32 model runs nasm ($nasm)"
kill -KILL $pid
wait $pid 2>/dev/null
i=0
while running "$nasm" && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
! running "$nasm"
ok $? "kill -9 of t32 leaves no nasm running"
empty "$TMP/tmpdir"
ok $? "nor a temporary file in TMPDIR"

# nasm's stdin is /dev/null, not t32's: an include of /dev/stdin reads nothing, where
# t32's own stdin (a FIFO whose writer stays) would hold nasm to its time limit
mkfifo "$TMP/fifo"
ok $? "a FIFO for t32's stdin"
sleep 20 >"$TMP/fifo" &
writer=$!
t0=$(date +%s)
TMPDIR="$TMP/tmpdir" "$T32" gen --raw-nasm --timeout 5 --elf -o "$TMP/y.elf" l m \
	'nop; %include "/dev/stdin"' <"$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(date +%s)
is 0 "$rc" "nasm does not read t32's stdin"
ok $(( t1 - t0 <= 4 ? 0 : 1 )) "and is not held by it ($((t1 - t0)) s)"
kill $writer 2>/dev/null
done_testing

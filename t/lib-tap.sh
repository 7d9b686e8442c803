# lib-tap.sh - TAP for t32's shell tests.  Source it, call plan N, then ok/is/skip.
# Never pipe the command under test: run it into files with `run`, then compare.

T32=${T32:-$(cd "$(dirname "$0")/.." && pwd)/build/t32}
T32_SRC=${T32_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t32-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
# caches (latencies, the sample history) stay in the test's own directory
export T32_CACHE_DIR="${T32_CACHE_DIR:-$TMP/cache}"
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# diag LINE...: a comment in the TAP stream; once a test of the file failed, on
# stderr too, so that a log of prove without -v (CI's) shows why
diag() {
	printf '# %s\n' "$@"
	[ "$_tap_failed" -eq 0 ] || printf '# %s\n' "$@" >&2
}

# _tap_line STATUS NAME [DIRECTIVE]: the next test's line, "ok" where STATUS is
# 0; returns STATUS's truth
_tap_line() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2$3"
	else
		echo "not ok $_tap_n - $2$3"
		return 1
	fi
}

# ok COND-STATUS NAME: ok 0 "name" passes
ok() {
	_tap_line "$1" "$2" && return
	echo "#   Failed test $_tap_n - $2" >&2
	_tap_failed=$((_tap_failed + 1))
}

# todo STATUS NAME REASON: a check known to fail, with why (TAP's TODO: a failure
# is reported and not counted; a pass is reported as unexpected by prove)
todo() { _tap_line "$1" "$2" " # TODO $3" || :; }

# is EXPECTED SEEN NAME
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; diag "expected '$1', seen '$2'"; fi
}

# like FILE REGEX NAME: a line of FILE matches the extended regex
like() {
	if grep -Eq -- "$2" "$1"; then ok 0 "$3"; else ok 1 "$3"; diag "no line of $1 matches /$2/:"; sed 's/^/#   /' "$1" | head -5; fi
}

# rows_written: the last run was a sweep that wrote every row: exit 0, or 5
# where some rows are not ok (untrusted on a busy machine, skipped by design)
rows_written() { [ "$rc" = 0 ] || [ "$rc" = 5 ]; }
# swept NAME: rows_written as an assertion
swept() { if rows_written; then ok 0 "$1"; else ok 1 "$1"; diag "exit $rc, not 0 or 5"; fi; }

# sampled NAME: the last run was a sample that printed its shares: exit 0, or 7
# with one of the honest reasons a busy machine gives (the samples moved during
# the run, or too few landed in the body while other work took the CPU)
sampled() {
	if [ "$rc" = 0 ] || { [ "$rc" = 7 ] && grep -Eq 'the samples moved during the run|too few samples in the body' "$TMP/err"; }; then
		ok 0 "$1 (exit $rc)"
	else
		ok 1 "$1 (exit $rc)"
		sed 's/^/#   /' "$TMP/err" | head -5
	fi
}

skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # skip $*"; }

# bail REASON: a set-up step failed; nothing after it can be judged
bail() { echo "Bail out! $*"; exit 1; }

# run ARGS...: run t32 with stdout in $TMP/out, stderr in $TMP/err, status in $rc
run() {
	"$T32" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# interrupt OUT ERR ARGS...: t32 ARGS in a process group of its own, stdout in OUT
# and stderr in ERR, given Ctrl-C after a second the way a terminal sends it (to
# the whole group, a measuring child too); its status in $rc
interrupt() {
	out=$1 err=$2
	shift 2
	setsid "$T32" "$@" >"$out" 2>"$err" &
	pid=$!
	sleep 1
	kill -INT -- -$pid 2>/dev/null || kill -INT $pid
	wait $pid
	rc=$?
}

# expect STATUS REGEX NAME -- ARGS...: t32 ARGS exits STATUS with a line of stderr
# matching REGEX (two assertions)
expect() {
	want=$1 re=$2 name=$3
	shift 4
	run "$@"
	is "$want" "$rc" "$name: exit $want"
	like "$TMP/err" "$re" "$name: message"
}

# col NAME FILE: the value of column NAME in the first data row of a tsv
col() {
	awk -F'\t' -v c="$1" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k; exit}' "$2"
}

# wake_events FILE METHOD BASE_NS N EVERY KEPT STATUS: a synthetic wake result of N
# events, latency BASE_NS + 0..2 us, the gap BASE_NS + 3 us; every EVERY-th event
# (the first too) has kept KEPT and status STATUS, the others 1 and ok
wake_events() {
	awk -v m="$2" -v b="$3" -v n="$4" -v e="$5" -v k="$6" -v s="$7" 'BEGIN {
		srand(7); print "# wake: method=" m " ldist_ns=20000..4000000 idle_only=no"
		print "i\tldist_ns\tlatency_ns\tgap_ns\tkept\tstatus"
		for (i = 0; i < n; i++)
			printf "%d\t%d\t%.1f\t%.1f\t%d\t%s\n", i, 20000 + i * 9000, b + 2000 * rand(),
				b + 3000, i % e ? 1 : k, i % e ? "ok" : s
	}' >"$1"
}

done_testing() {
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# busy: the last run's result was untrusted because other work ran beside every
# measuring process (a busy machine; nothing else about the result can be judged)
busy() {
	[ "$rc" = 7 ] && grep -q 'other work ran' "$TMP/err"
}

# measured NAME: the last run measured and trusted its result (exit 0); where other
# work ran beside every measuring process, or the core clock drifted beyond what
# the rounds' calibration follows, or changed so that the calibration disagrees
# with its own chains' fastest runs, or the sensors found the core shared with a
# thread the guest cannot see (exit 7 saying so, on a busy host), a skip with
# that reason instead, since no value can be judged then
measured() {
	if busy; then
		skip "$1: other work ran beside the measurement"
	elif [ "$rc" = 7 ] && grep -q 'the core clock drifted\|the core clock changed' "$TMP/err"; then
		skip "$1: $(grep -m1 'the core clock drifted\|the core clock changed' "$TMP/err" | cut -c1-200)"
	elif [ "$rc" = 7 ] && grep -q 'shared the core\|the sensors know the core clock only' "$TMP/err"; then
		skip "$1: $(grep -m1 'shared the core\|the sensors know the core clock only' "$TMP/err" | cut -c1-200)"
	else
		is 0 "$rc" "$1"
		[ "$rc" = 0 ] || sed 's/^/#   /' "$TMP/err" | head -3 >&2
	fi
}

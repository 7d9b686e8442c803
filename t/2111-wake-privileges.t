#!/bin/sh
# t32 wake unprivileged and as root: SCHED_FIFO, mlockall and the PM QoS request
# are used where permitted and otherwise refused with a warning, recorded in the
# raw file, and the run goes on.  Unprivileged runs as nobody (setpriv) when the
# test runs as root; as itself otherwise.
. "$(dirname "$0")/lib-tap.sh"
plan 12

# the run as given ($@ before t32), into $D/u.tsv, its stderr in $TMP/err
D=$TMP/u
mkdir -p "$D" && chmod 777 "$D" "$TMP"
wake_as() {
	"$@" "$T32" wake --count 20 --ldist 50us,200us --pm-qos 0 -o "$D/u.tsv" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
# the setup line's value of KEY
setup() { sed -n "s/^# wake: .* $1=\([^ ]*\).*/\1/p" "$D/u.tsv"; }

if [ "$(id -u)" = 0 ]; then
	wake_as
	case $rc in 0|7) ok 0 "as root: measured (exit $rc)" ;; *) ok 1 "as root: exit $rc"; diag "$(cat "$TMP/err")" ;; esac
	is fifo "$(setup policy)" "as root: SCHED_FIFO"
	is 80 "$(setup priority)" "at priority 80"
	if [ -e /dev/cpu_dma_latency ]; then
		is 0 "$(setup pm_qos_us)" "as root: the PM QoS request is held"
	else
		skip "no /dev/cpu_dma_latency here"
	fi
	if command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		as=""
	fi
else
	for i in 1 2 3 4; do skip "not root: the privileged path is not tried"; done
	as="env"
fi
if [ -z "$as" ]; then
	for i in $(seq 8); do skip "cannot run as nobody here (no setpriv)"; done
	done_testing
fi
wake_as $as
case $rc in 0|7) ok 0 "unprivileged: measured all the same (exit $rc)" ;; *) ok 1 "unprivileged: exit $rc"; diag "$(cat "$TMP/err")" ;; esac
if grep -q "SCHED_FIFO priority 80 refused" "$TMP/err"; then
	ok 0 "unprivileged: SCHED_FIFO refused, with a warning"
	is other "$(setup policy)" "recorded as SCHED_OTHER"
	like "$D/u.tsv" "^# note: SCHED_FIFO priority 80 refused" "with the reason in the file"
else
	# an RLIMIT_RTPRIO that allows it
	is fifo "$(setup policy)" "unprivileged: SCHED_FIFO allowed here (RLIMIT_RTPRIO)"
	skip "SCHED_FIFO was not refused"
	skip "SCHED_FIFO was not refused"
fi
if [ "$(setup pm_qos_us)" = refused ]; then
	like "$TMP/err" "PM QoS request of 0 us refused \('/dev/cpu_dma_latency': " "the PM QoS request refused, with the reason"
	like "$D/u.tsv" "^# note: PM QoS request of 0 us refused" "and the reason in the file"
else
	# a /dev/cpu_dma_latency this user may write
	is 0 "$(setup pm_qos_us)" "the PM QoS request is held (the device is writable here)"
	grep -q "PM QoS" "$TMP/err"
	is 1 "$?" "without a warning"
fi
if grep -q "mlockall refused" "$TMP/err"; then
	is no "$(setup mlock)" "mlockall refused and recorded so"
else
	is yes "$(setup mlock)" "mlockall allowed and recorded so"
fi
is 20 "$(grep -vc '^#' "$D/u.tsv" | awk '{print $1 - 1}')" "and every event is there"
done_testing

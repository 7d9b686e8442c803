#!/bin/sh
# contrib/slurm: a one-node Slurm cluster (munged, slurmctld, slurmd) configured
# here in a temporary directory, no systemd, runs the table as a job array of
# three shards and the merge job that depends on it; the merged sweep holds the
# rows of one sweep of the whole table.  Where the cluster cannot start (no Slurm
# or munge installed, not root, a daemon that will not come up) the test skips
# and says why.
. "$(dirname "$0")/lib-tap.sh"

for c in munged slurmctld slurmd sbatch sinfo scontrol; do
	command -v "$c" >/dev/null 2>&1 || skip_all "$c is not installed (Debian: slurm-wlm, munge)"
done
[ "$(id -u)" = 0 ] || skip_all "slurmd must run as root to start jobs"

D="$TMP/slurm"
mkdir -p "$D/munge" "$D/spool" "$D/state" "$D/log" && chmod 711 "$D/munge" || skip_all "cannot make $D"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
# the last lines of the daemons' logs, for a skip or a failure
logs() { tail -n 3 "$D"/log/*.log 2>/dev/null | tr '\n' ' ' | cut -c1-400; }

if command -v mungekey >/dev/null 2>&1; then
	mungekey -c -k "$D/munge/munge.key" -b 1024 2>"$D/log/mungekey.log"
else
	dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null
fi
chmod 400 "$D/munge/munge.key" || skip_all "cannot make a munge key"
munged -F --force --key-file="$D/munge/munge.key" --socket="$D/munge/munge.sock" \
	--log-file="$D/log/munged.log" --pid-file="$D/munge/munged.pid" --seed-file="$D/munge/seed" \
	>>"$D/log/munged.log" 2>&1 &
pids="$pids $!"
i=0
while [ ! -S "$D/munge/munge.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$D/munge/munge.sock" ] || skip_all "munged did not start: $(logs)"

host=$(hostname -s 2>/dev/null || hostname)
port=$((20000 + $$ % 20000))
cat >"$D/slurm.conf" <<CONF
ClusterName=t32test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=t32 Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >>"$D/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" >>"$D/log/slurmd.out" 2>&1 &
pids="$pids $!"
state=
i=0
while [ $i -lt 60 ]; do
	state=$(sinfo -h -o %T 2>/dev/null | head -1)
	[ "$state" = idle ] && break
	sleep 0.5
	i=$((i + 1))
done
[ "$state" = idle ] || skip_all "the one-node cluster did not come up (node '${state:-none}'): $(logs)"

plan 8
S="--n 840 --k-list 12 --budget 0.05 --block-precision 5 --precision 1"
keys() { grep '^[0-9]' "$1" | cut -f1-4 | sort; }
printf '# source: test\n# applies to: any\n%s\n%s\n%s\n' \
	'add | add rax, rbx | tp=add {r}, rbx' 'imul | imul rax, rbx | tp=imul {r}, rbx' \
	'cmp | cmp rax, rbx | chain=none | tp=cmp rax, rbx' >"$TMP/t.tbl"
run sweep $S -o "$TMP/single.tsv" "$TMP/t.tbl"
swept "one sweep of the whole table"

# submitted held, so that the dependency is still there to see (a finished
# array takes it away: Dependency=(null)), then released
T32="$T32" SBATCH_ARGS="--chdir=$TMP --hold" "$T32_SRC/contrib/slurm/t32-submit.sh" 3 "$TMP/t.tbl" \
	"$TMP/res" $S >"$TMP/sub.out" 2>"$TMP/sub.err"
is 0 "$?" "t32-submit.sh submits the array and the merge job"
array=$(awk '{print $2}' "$TMP/sub.out")
merge=$(awk '{print $4}' "$TMP/sub.out")
like "$TMP/sub.out" '^array [0-9]+ merge [0-9]+$' "and prints both job ids"
dep=$(scontrol show job "$merge" 2>/dev/null | tr ' ' '\n' | grep '^Dependency=' | head -1)
diag "merge job $merge: $dep"
case $dep in Dependency=afterok:"$array"_\*\(*|Dependency=afterok:"$array"\(*)
	ok 0 "the merge depends on the array (afterok)" ;;
*) ok 1 "the merge depends on the array (afterok)"; diag "$dep" ;; esac
scontrol release "$array" 2>/dev/null
scontrol release "$merge" 2>/dev/null
mstate=
i=0
while [ $i -lt 240 ]; do
	mstate=$(scontrol show job "$merge" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | head -1)
	case $mstate in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
	sleep 0.5
	i=$((i + 1))
done
is COMPLETED "$mstate" "the merge job ran after the array and completed"
[ "$mstate" = COMPLETED ] || diag "$(cat "$TMP"/res/*.log 2>/dev/null | tail -5) $(logs)"
n=0
for k in 1 2 3; do [ -s "$TMP/res/shard-$k-of-3.tsv" ] && n=$((n + 1)); done
is 3 "$n" "each array task wrote its shard"
like "$TMP/res/merged.tsv" '^# merged: 3 pieces' "the merge joined three pieces"
is "$(keys "$TMP/single.tsv")" "$(keys "$TMP/res/merged.tsv")" "the merged rows are the single sweep's rows"
done_testing

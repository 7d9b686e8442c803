#!/bin/sh
# t32-parallel.sh - sweep a table over ssh hosts with GNU parallel: N shards, one
# at a time per host, each host's shard copied back, then merged here.
#
#   contrib/parallel/t32-parallel.sh N TABLE.tbl OUTDIR [SWEEP OPTIONS...]
#
# Hosts come from PARALLEL_HOSTS, a comma-separated list of ssh logins
# ("alice@lab1,lab2"; ":" is this machine; default ":"), and each runs
# PARALLEL_JOBS shards at once (default 1: a measurement wants its core to
# itself).  Every host needs t32 on its PATH (or T32 naming it, the same path
# everywhere); the table is copied to each host and the shards copied back
# (parallel's --transferfile and --return), so no shared file system is needed.
# The result is OUTDIR/merged.tsv; the shards stay beside it for --resume.
set -eu
. "$(dirname "$0")/../shard-args.sh"
command -v parallel >/dev/null 2>&1 || { echo "t32: GNU parallel is not installed 'parallel'" >&2; exit 3; }
t32=${T32:-t32}
mkdir -p "$outdir"
cp "$table" "$outdir/table.tbl"
cd "$outdir"
# the sweep options, quoted once for the remote shell
opts=
for a in "$@"; do
	opts="$opts '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
done
hosts=${PARALLEL_HOSTS:-:}
# files go to and from remote hosts only (":" alone is this machine, nothing to copy)
case ,$hosts, in
,:,) set -- ;;
*) set -- --transferfile table.tbl --return "shard-{}-of-$n.tsv" --cleanup ;;
esac
# a shard's exit 5 (every row written, some not ok) is a shard done: the merge reads
# the statuses
seq 1 "$n" | parallel --will-cite --halt now,fail=1 -S "$hosts" --jobs "${PARALLEL_JOBS:-1}" \
	"$@" "'$t32' sweep --shard {}/$n --resume -o shard-{}-of-$n.tsv $opts table.tbl || [ \$? -eq 5 ]"
files=
k=1
while [ "$k" -le "$n" ]; do
	files="$files shard-$k-of-$n.tsv"
	k=$((k + 1))
done
# shellcheck disable=SC2086 # shard names hold no blanks
exec "$t32" sweep --merge -o merged.tsv $files

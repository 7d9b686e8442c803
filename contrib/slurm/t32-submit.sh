#!/bin/sh
# t32-submit.sh - sweep a table on a Slurm cluster: a job array of N shards and a
# merge job that runs when all of them have succeeded.
#
#   contrib/slurm/t32-submit.sh N TABLE.tbl OUTDIR [SWEEP OPTIONS...]
#
# e.g.  t32 table gen -o full.tbl
#       contrib/slurm/t32-submit.sh 16 full.tbl results --n 840 --k-list 12 --precision 0.02
#
# OUTDIR must be on a file system every node sees; so must TABLE.tbl.  Extra
# sbatch options go in SBATCH_ARGS (e.g. "--partition=short --exclusive").  Prints
# the two job ids; the result is OUTDIR/merged.tsv.
set -eu
. "$(dirname "$0")/../shard-args.sh"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array="1-$n" --output="$outdir/t32-sweep-%A_%a.log" \
	"$here/t32-sweep.sbatch" "$table" "$outdir" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterok:$array" \
	--output="$outdir/t32-merge-%j.log" "$here/t32-merge.sbatch" "$outdir" "$n")
merge=${merge%%;*}
echo "array $array merge $merge"

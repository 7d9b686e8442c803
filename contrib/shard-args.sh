# shard-args.sh - the arguments every contrib launcher of a sharded sweep takes,
# N TABLE.tbl OUTDIR [SWEEP OPTIONS...]: sourced (". DIR/../shard-args.sh") after
# `set -eu`, it checks them, sets n, table and outdir, and shifts the three off,
# leaving the sweep options in "$@".  A bad call exits 2 with the usage.
[ $# -ge 3 ] || { echo "usage: $0 N TABLE.tbl OUTDIR [SWEEP OPTIONS...]" >&2; exit 2; }
n=$1
table=$2
outdir=$3
shift 3
case $n in ''|*[!0-9]*|0) echo "t32: bad shard count '$n' (1 or more)" >&2; exit 2 ;; esac

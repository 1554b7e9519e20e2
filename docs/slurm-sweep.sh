#!/bin/bash
# A gpumemsim sweep as a Slurm job array: each array task runs one shard
# of the rows, and a job that starts when the array has ended merges the
# shards' files into the whole sweep's (the same bytes as one unsharded
# run). Submit from a login node, with gpumemsim on the PATH:
#
#   bash docs/slurm-sweep.sh            # submits the array and the merge
#
# Each task reads its shard from SLURM_ARRAY_TASK_ID (counted from
# SLURM_ARRAY_TASK_MIN) and SLURM_ARRAY_TASK_COUNT; see
# 'gpumemsim sweep -h' and docs/design.md, "Sweeps and shards".
#SBATCH --job-name=gpumemsim-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=gpumemsim-sweep-%A_%a.log
set -euo pipefail

# The sweep: every task must run it with the same axes and flags.
SWEEP=(-device gt200,fermi,kepler -kernel vecadd,copy -blocks 64,128,256 -set N=65536,1048576)
OUT=${GPUMEMSIM_SWEEP_DIR:-$PWD/gpumemsim-sweep}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
	# On the login node: submit the array, then the merge after it.
	mkdir -p "$OUT"
	array=$(sbatch --parsable --export=ALL,GPUMEMSIM_SWEEP_DIR="$OUT" "$0")
	# afterany: a task whose rows failed exits 1 but has written its file;
	# merge refuses to write anything if a shard's rows are missing.
	sbatch --dependency=afterany:"$array" --job-name=gpumemsim-merge \
		--output=gpumemsim-merge-%j.log \
		--wrap="gpumemsim merge -o '$OUT/sweep.csv' '$OUT'/shard-*.csv"
	echo "submitted array $array; the merged sweep will be $OUT/sweep.csv"
	exit 0
fi

# One array task: its shard, written whole at the end. A requeued or
# resubmitted task keeps the rows its earlier run finished (-resume).
part="$OUT/shard-$SLURM_ARRAY_TASK_ID.csv"
resume=()
if [ -f "$part" ]; then
	resume=(-resume "$part")
fi
exec gpumemsim sweep "${SWEEP[@]}" -j "${SLURM_CPUS_PER_TASK:-1}" ${resume[@]+"${resume[@]}"} -o "$part"

#!/bin/bash -l
# PBS Pro on ALCF Polaris (Cray PALS mpiexec; 4 A100 GPUs and 32 cores per node): one ResNet34 run on
# every GPU of the job, then an hvdkit scale sweep 1 -> all ranks.
#
#     qsub -A <project> examples/jobs/pbs_polaris_scale.sh
#     qsub -A <project> -v FRAMEWORK=torch examples/jobs/pbs_polaris_scale.sh
#
# Other PBS sites: change the -l lines, the module lines, and the mpiexec placement flags.
#PBS -N hvdkit-resnet34
#PBS -l select=2:system=polaris
#PBS -l place=scatter
#PBS -l walltime=0:30:00
#PBS -l filesystems=home:eagle
#PBS -q debug
#PBS -j oe
set -euo pipefail
cd "${PBS_O_WORKDIR:-.}"

# Polaris: the conda module has TensorFlow, PyTorch and Horovod; hvdkit installed into it with make setup.
module use /soft/modulefiles
module load conda
conda activate

FRAMEWORK=${FRAMEWORK:-tensorflow}
case "$FRAMEWORK" in  # one Horovod script per framework
    tensorflow) TRAIN=examples/resnet34/train_hvd.py ;;
    torch) TRAIN=examples/resnet34/train_hvd_torch.py ;;
    *) echo "FRAMEWORK must be tensorflow or torch, got '$FRAMEWORK'" >&2; exit 2 ;;
esac
ARGS=(--image-size 224 --batch-size 32 --num-steps 50 --warmup-steps 5)
NNODES=$(wc -l < "$PBS_NODEFILE")
PPN=4                       # one rank per GPU; hvdkit's init() pins rank i of a node to GPU i
DEPTH=8                     # 32 cores / 4 ranks: each rank's threads stay on its own 8 cores
NRANKS=$((NNODES * PPN))
OUT=results/pbs-${PBS_JOBID%%.*}
mkdir -p "$OUT"

# One run with every rank; PALS mpiexec forwards the environment (no -x needed), HVDKIT_RECORD too: hvdkit's
# meter writes the run record there (docs/scale.md).
HVDKIT_RECORD="$OUT/full.json" mpiexec -n "$NRANKS" --ppn "$PPN" --depth "$DEPTH" --cpu-bind depth \
    --env OMP_NUM_THREADS="$DEPTH" python "$TRAIN" "${ARGS[@]}"

# Weak-scaling sweep over powers of two up to the job's ranks: table, CSV, PNG, PDF in $OUT/scale.
COUNTS=""
for ((n = 1; n < NRANKS; n *= 2)); do COUNTS+="$n,"; done
COUNTS+="$NRANKS"
hvdkit scale -n "$COUNTS" --launcher mpiexec \
    --launcher-args "--ppn $PPN --depth $DEPTH --cpu-bind depth --env OMP_NUM_THREADS=$DEPTH --hostfile $PBS_NODEFILE" \
    --out "$OUT/scale" -- python "$TRAIN" "${ARGS[@]}"

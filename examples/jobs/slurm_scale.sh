#!/bin/bash
# Slurm: one ResNet34 run at the allocation's full size, then an hvdkit scale sweep 1 -> all ranks.
#
#     sbatch examples/jobs/slurm_scale.sh            # TensorFlow (the course's default)
#     sbatch examples/jobs/slurm_scale.sh torch
#
# Edit the #SBATCH lines for your site: one rank per GPU (here 4 GPUs per node), and the node's CPU
# cores split among its ranks (--cpus-per-task), which hvdkit's init() turns into intra-op threads.
#SBATCH --job-name=hvdkit-resnet34
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gpus-per-node=4
#SBATCH --cpus-per-task=8
#SBATCH --time=00:30:00
#SBATCH --output=%x-%j.out
set -euo pipefail
cd "${SLURM_SUBMIT_DIR:-.}"

# The environment with hvdkit, the frameworks and Horovod (make setup, or your site's module/conda env).
source .venv/bin/activate

FRAMEWORK=${1:-tensorflow}
case "$FRAMEWORK" in  # one Horovod script per framework
    tensorflow) TRAIN=examples/resnet34/train_hvd.py ;;
    torch) TRAIN=examples/resnet34/train_hvd_torch.py ;;
    *) echo "FRAMEWORK must be tensorflow or torch, got '$FRAMEWORK'" >&2; exit 2 ;;
esac
ARGS=(--image-size 224 --batch-size 32 --num-steps 50 --warmup-steps 5)
OUT=results/slurm-$SLURM_JOB_ID
mkdir -p "$OUT"
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK

# One run with every rank of the allocation; srun forwards the environment and binds each rank to its cores.
# hvdkit's meter writes the run record where HVDKIT_RECORD says (docs/scale.md).
HVDKIT_RECORD="$OUT/full.json" srun --ntasks="$SLURM_NTASKS" --cpu-bind=cores \
    python "$TRAIN" "${ARGS[@]}"

# Weak-scaling sweep over powers of two up to the allocation (plus the full size): table, CSV, PNG, PDF in $OUT/scale.
COUNTS=""
for ((n = 1; n < SLURM_NTASKS; n *= 2)); do COUNTS+="$n,"; done
COUNTS+="$SLURM_NTASKS"
hvdkit scale -n "$COUNTS" --launcher srun --launcher-args "--cpu-bind=cores" --out "$OUT/scale" -- \
    python "$TRAIN" "${ARGS[@]}"

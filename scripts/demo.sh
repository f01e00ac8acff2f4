#!/usr/bin/env bash
# `make demo`: the main job on this machine, after setup.
#   1. hvdkit doctor
#   2. the pi example at 2 ranks (mpi4py, vectorized vs the course's loop)
#   3. a short ResNet34 throughput sweep 1 -> 2 ranks (TensorFlow, the course's default) with table,
#      CSV and plots under results/scale-resnet34/
#   4. the Horovod timeline of two chosen steps of the PyTorch example at 2 ranks, and its summary
# The tools drive the examples from outside: the scripts have no option for them (docs/scale.md, timeline.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${1:-.venv/bin/python}
BIN=$(cd "$(dirname "$PYTHON")" && pwd)
export PATH="$BIN:$PATH"
# OpenMPI refuses root without these; hvdkit's own launchers set them for their children.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export TF_CPP_MIN_LOG_LEVEL=2 OMPI_MCA_btl_base_warn_component_unused=0
mkdir -p results

echo "== hvdkit doctor"
"$BIN/hvdkit" doctor

echo; echo "== pi at 2 ranks: mpirun -n 2 python examples/pi/pi.py -N 20000000 --method both"
mpirun -n 2 "$PYTHON" examples/pi/pi.py -N 20000000 --seed 1 --method both --json results/pi.json

echo; echo "== ResNet34 throughput, 1 -> 2 ranks: hvdkit scale -n 1,2 -- python examples/resnet34/train_hvd.py ..."
"$BIN/hvdkit" scale -n 1,2 --out results/scale-resnet34 -- \
    "$PYTHON" examples/resnet34/train_hvd.py --image-size 64 --batch-size 8 --num-steps 10 --warmup-steps 2
echo; echo "== Horovod timeline of steps 3-4 at 2 ranks: hvdkit timeline capture --steps 3:5 -n 2 -- python examples/resnet34/train_hvd_torch.py ..."
"$BIN/hvdkit" timeline capture --steps 3:5 -o results/trace-resnet34.json -n 2 -- \
    "$PYTHON" examples/resnet34/train_hvd_torch.py --image-size 64 --batch-size 8 --num-steps 3 --warmup-steps 2
"$BIN/hvdkit" timeline summary results/trace-resnet34.json --top 5
echo; echo "demo done: results/pi.json, results/scale-resnet34/ (table, CSV, PNG and PDF plots), results/trace-resnet34.json"

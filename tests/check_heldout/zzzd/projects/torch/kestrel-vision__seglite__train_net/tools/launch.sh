#!/bin/bash
# usage: tools/launch.sh {mpi|torchrun|slurm} NPROC [args...]
MODE=$1; NP=$2; shift 2
case $MODE in
  mpi)      horovodrun -np $NP python train_net.py "$@" ;;
  torchrun) torchrun --standalone --nproc_per_node $NP train_net.py "$@" ;;
  slurm)    srun -n $NP --mpi=pmi2 python train_net.py "$@" ;;
esac

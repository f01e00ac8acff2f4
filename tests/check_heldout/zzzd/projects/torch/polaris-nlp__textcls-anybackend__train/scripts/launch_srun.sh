#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node 4
#SBATCH --gres gpu:4
srun --mpi=pmix python train.py --data-dir /data/agnews "$@"

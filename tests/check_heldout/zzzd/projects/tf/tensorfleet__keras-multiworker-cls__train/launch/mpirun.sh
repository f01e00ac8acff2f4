#!/bin/bash
mpirun -np ${NP:-4} --bind-to none -x LD_LIBRARY_PATH python train.py "$@"

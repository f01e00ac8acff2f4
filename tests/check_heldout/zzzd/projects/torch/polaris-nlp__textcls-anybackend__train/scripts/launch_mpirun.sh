#!/bin/bash
# 2 nodes x 4 GPUs, Open MPI
mpirun -np 8 -H node1:4,node2:4 -bind-to none -map-by slot \
    -x NCCL_DEBUG=INFO -x LD_LIBRARY_PATH -x PATH \
    python train.py --data-dir /data/agnews "$@"

#!/bin/bash
torchrun --nproc_per_node 4 train.py --backend ddp --data-dir /data/agnews "$@"

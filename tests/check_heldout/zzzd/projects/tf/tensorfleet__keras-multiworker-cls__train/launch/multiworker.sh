#!/bin/bash
# TF_CONFIG must be exported per worker by the scheduler
python train.py --strategy multiworker "$@"

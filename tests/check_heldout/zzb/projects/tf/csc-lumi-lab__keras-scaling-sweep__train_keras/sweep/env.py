"""Scheduler / node information and CPU thread settings for the sweep runs."""
import os
import socket

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def cpus_for_this_rank():
    if "SLURM_CPUS_PER_TASK" in os.environ:
        return int(os.environ["SLURM_CPUS_PER_TASK"])
    cores = len(os.sched_getaffinity(0))
    return max(1, cores // hvd.local_size())


def configure_threads():
    """Call right after hvd.init(), before any op runs."""
    n = cpus_for_this_rank()
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    return n


def job_summary():
    return {
        "job_id": os.environ.get("SLURM_JOB_ID", "local"),
        "partition": os.environ.get("SLURM_JOB_PARTITION", "-"),
        "nodes": os.environ.get("SLURM_JOB_NUM_NODES", "1"),
        "host": socket.gethostname(),
        "ranks": hvd.size(),
        "ranks_per_node": hvd.local_size(),
        "tf": tf.__version__,
    }


def log_rank0(msg):
    if hvd.rank() == 0:
        print(msg, flush=True)

"""PBS Pro job information and per-node resource settings."""
import os

import tensorflow as tf


def job_id():
    return os.environ.get("PBS_JOBID", "interactive")


def num_nodes():
    nodefile = os.environ.get("PBS_NODEFILE")
    if nodefile and os.path.exists(nodefile):
        with open(nodefile) as fh:
            return len({line.strip() for line in fh if line.strip()})
    return 1


def configure_node(local_rank, local_size):
    """Give each rank on a node its own GPU and an equal share of the node's cores."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
    ncpus = int(os.environ.get("NCPUS", os.cpu_count() or 1))
    threads = max(1, ncpus // local_size)
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    return threads

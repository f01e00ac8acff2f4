import os

import tensorflow as tf


def configure_devices(verbose=False):
    """Let TF grow GPU memory instead of grabbing all of it (the login nodes are shared),
    and keep the CPU threads per process reasonable under srun."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    n_threads = int(os.environ.get("SLURM_CPUS_PER_TASK", "4"))
    tf.config.threading.set_intra_op_parallelism_threads(n_threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    if verbose:
        print(f"{len(gpus)} GPU(s) visible, {n_threads} intra-op threads")
    return gpus

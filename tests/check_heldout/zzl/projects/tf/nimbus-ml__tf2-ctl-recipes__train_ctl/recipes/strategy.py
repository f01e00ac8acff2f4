"""A hand-rolled stand-in for tf.distribute.Strategy on top of Horovod.

Only the bits our recipes used are provided: num_replicas_in_sync, an
input-context based dataset distribution, reduce() and a chief flag.
"""
import tensorflow as tf
import horovod.tensorflow as hvd


class HorovodStrategy:
    def __init__(self):
        hvd.init()
        gpus = tf.config.experimental.list_physical_devices("GPU")
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
        if gpus:
            tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    @property
    def num_replicas_in_sync(self):
        return hvd.size()

    @property
    def is_chief(self):
        return hvd.rank() == 0

    def distribute_datasets_from_function(self, dataset_fn):
        ctx = tf.distribute.InputContext(
            num_input_pipelines=hvd.size(),
            input_pipeline_id=hvd.rank(),
            num_replicas_in_sync=hvd.size(),
        )
        return dataset_fn(ctx)

    def reduce(self, op, value):
        # op is "SUM" or "MEAN" like tf.distribute.ReduceOp
        red = hvd.Sum if op == "SUM" else hvd.Average
        return hvd.allreduce(tf.convert_to_tensor(value), op=red)

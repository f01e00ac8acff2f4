import tensorflow as tf
import horovod.tensorflow as hvd


def sync_after_first_step(*modules, optimizer=None):
    variables = [v for m in modules for v in m.variables]
    if optimizer is not None:
        variables += list(optimizer.variables)
    hvd.broadcast_variables(variables, root_rank=0)


def global_sum(values, name):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name=name).numpy()


class RankZeroCheckpoint:
    def __init__(self, directory, max_to_keep=3, **objects):
        self.ckpt = tf.train.Checkpoint(**objects)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=max_to_keep) \
            if hvd.rank() == 0 else None

    def save(self, step):
        if self.manager is not None:
            return self.manager.save(checkpoint_number=step)

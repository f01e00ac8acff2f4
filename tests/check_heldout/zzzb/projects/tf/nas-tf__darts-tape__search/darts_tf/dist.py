import tensorflow as tf
import horovod.tensorflow as hvd


def broadcast_model(model, optimizer, root_rank=0):
    """Sync the network and the weight optimizer from the root after the first step."""
    hvd.broadcast_variables(model.weight_variables, root_rank=root_rank)
    hvd.broadcast_variables(optimizer.variables, root_rank=root_rank)


def allreduce_grads(grads, prefix):
    return [hvd.allreduce(g, name=f"{prefix}_{i}", op=hvd.Average) for i, g in enumerate(grads)]


def global_mean(value, name):
    return hvd.allreduce(tf.convert_to_tensor(value, tf.float32), name=name, op=hvd.Average)

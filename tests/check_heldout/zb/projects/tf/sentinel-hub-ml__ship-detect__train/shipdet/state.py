import tensorflow as tf
import horovod.tensorflow as hvd


def restore_or_init(model, optimizer, ckpt_dir, resume):
    """Same starting point on every worker; rank 0 picks up the last checkpoint after a preemption."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=5)
    start = 0
    if hvd.rank() == 0 and resume and manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        start = int(ckpt.epoch.numpy())
        print(f"resumed from {manager.latest_checkpoint} at epoch {start}", flush=True)
    start = hvd.broadcast_object(start, root_rank=0, name="start_epoch")
    return ckpt, manager, start


def save_epoch(ckpt, manager, epoch):
    ckpt.epoch.assign(epoch + 1)
    manager.save(checkpoint_number=epoch)

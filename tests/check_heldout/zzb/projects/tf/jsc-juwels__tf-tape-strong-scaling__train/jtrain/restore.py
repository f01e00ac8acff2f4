"""Resume support: every rank reads the newest checkpoint from the shared $SCRATCH folder."""
import tensorflow as tf
import horovod.tensorflow as hvd


def restore_or_init(model, optimizer, ckpt_dir, max_to_keep=2):
    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer,
                               epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=max_to_keep)
    start_epoch = 0
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint).expect_partial()
        start_epoch = int(ckpt.epoch.numpy())
        # make sure a half-written checkpoint on one node cannot split the ranks
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
        start_epoch = int(hvd.broadcast(tf.constant(start_epoch), root_rank=0, name="start_epoch"))
        if hvd.rank() == 0:
            print(f"resumed from {manager.latest_checkpoint} at epoch {start_epoch}", flush=True)
    return ckpt, manager, start_epoch

import tensorflow as tf


def make_manager(workdir, net, opt, ema_net):
    ckpt = tf.train.Checkpoint(net=net, opt=opt, ema=ema_net)
    return tf.train.CheckpointManager(ckpt, workdir, max_to_keep=4)


def restore_latest(manager):
    if manager.latest_checkpoint:
        manager.checkpoint.restore(manager.latest_checkpoint).expect_partial()
        return int(manager.latest_checkpoint.rsplit("-", 1)[-1])
    return 0

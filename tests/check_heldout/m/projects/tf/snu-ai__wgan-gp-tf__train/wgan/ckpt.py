import tensorflow as tf


def make_manager(generator, critic, g_opt, d_opt, step, directory, keep=5):
    ckpt = tf.train.Checkpoint(generator=generator, critic=critic, g_opt=g_opt, d_opt=d_opt, step=step)
    return ckpt, tf.train.CheckpointManager(ckpt, directory, max_to_keep=keep)


def save(manager, step_value):
    path = manager.save(checkpoint_number=step_value)
    print(f"saved {path}")
    return path


def restore_latest(ckpt, manager):
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint).expect_partial()
        return True
    return False

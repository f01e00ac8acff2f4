import tensorflow as tf
import horovod.tensorflow as hvd


def make_optimizer(base_lr, total_steps, warmup_steps=500):
    """AdamW with warmup + cosine decay; peak lr follows the linear scaling rule."""
    peak_lr = base_lr * hvd.local_size()
    schedule = tf.keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=base_lr, decay_steps=total_steps - warmup_steps,
        warmup_target=peak_lr, warmup_steps=warmup_steps, alpha=0.01)
    return tf.keras.optimizers.AdamW(learning_rate=schedule, weight_decay=1e-4), schedule

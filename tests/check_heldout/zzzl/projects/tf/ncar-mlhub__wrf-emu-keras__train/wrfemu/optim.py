import keras
import horovod.tensorflow as hvd


def make_optimizer(cfg, steps_per_epoch):
    o = cfg["optim"]
    lr = o["lr"] * (hvd.size() if o["scale_lr"] else 1)
    if o["warmup_epochs"] > 0:
        sched = keras.optimizers.schedules.CosineDecay(
            initial_learning_rate=o["lr"], decay_steps=o["epochs"] * steps_per_epoch,
            warmup_target=lr, warmup_steps=o["warmup_epochs"] * steps_per_epoch)
    else:
        sched = keras.optimizers.schedules.CosineDecay(lr, o["epochs"] * steps_per_epoch)
    return keras.optimizers.AdamW(learning_rate=sched, weight_decay=1e-4)

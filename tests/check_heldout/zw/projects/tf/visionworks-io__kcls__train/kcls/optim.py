import keras
import horovod.tensorflow.keras as hvd

from .registry import OPTIMIZERS

OPTIMIZERS.register_module('SGD')(keras.optimizers.SGD)
OPTIMIZERS.register_module('AdamW')(keras.optimizers.AdamW)


def build_lr_schedule(base_lr, policy='cosine', warmup_epochs=0, total_epochs=1, steps_per_epoch=1):
    assert policy == 'cosine'
    total = total_epochs * steps_per_epoch
    warmup = warmup_epochs * steps_per_epoch
    return keras.optimizers.schedules.CosineDecay(initial_learning_rate=base_lr * 1e-3, decay_steps=total - warmup,
                                                  warmup_target=base_lr, warmup_steps=warmup)


def build_optimizer(model, cfg, total_epochs, steps_per_epoch):
    cfg = dict(cfg)
    sched_cfg = cfg.pop('lr_schedule')
    lr = cfg.pop('lr')
    cfg['learning_rate'] = build_lr_schedule(lr, total_epochs=total_epochs, steps_per_epoch=steps_per_epoch, **sched_cfg)
    optimizer = OPTIMIZERS.build(cfg)
    return hvd.DistributedOptimizer(optimizer)

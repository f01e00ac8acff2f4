import keras
import horovod.tensorflow.keras as hvd


def _loss(cfg):
    return keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def compile_stage(model, cfg, stage, lr):
    """Stage 0 starts from the distributed optimizer; later stages restart the
    optimizer from the config with a decayed learning rate."""
    if stage == 0:
        opt = hvd.DistributedOptimizer(keras.optimizers.get({"class_name": cfg.optimizer,
                                                             "config": {"learning_rate": lr}}))
    else:
        opt = keras.optimizers.get({"class_name": cfg.optimizer,
                                    "config": {"learning_rate": lr * cfg.stage_lr_decay ** stage}})
    model.compile(optimizer=opt, loss=_loss(cfg), metrics=["accuracy"])
    return model


def stage_callbacks(cfg, stage):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(f"{cfg.out_dir}/stage{stage}.weights.h5",
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(f"{cfg.out_dir}/stage{stage}.csv"))
    return cbs

import os

import keras
import horovod.tensorflow.keras as hvd


def callbacks(opts, lr):
    cb = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
          hvd.callbacks.MetricAverageCallback(),
          hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=opts.warmup, verbose=1)]
    if hvd.rank() == 0:
        os.makedirs(opts.out, exist_ok=True)
        cb.append(keras.callbacks.ModelCheckpoint(os.path.join(opts.out, "mlp-{epoch:02d}.keras")))
    return cb


def compile_model(model, lr):
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model

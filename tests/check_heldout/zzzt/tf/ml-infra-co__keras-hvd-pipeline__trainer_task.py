"""Training step of the pipeline. The orchestrator imports `run` and calls it on every
horovod worker (hvdrun -np N python -m pipeline.stage train); the __main__ block is for
local runs only."""
import time

import keras
import horovod.tensorflow.keras as hvd

from kpipe import hvd_env, inputs, modeling, export
from kpipe.params import TrainParams


class _Speed(keras.callbacks.Callback):
    def __init__(self, batch_size, world):
        super().__init__()
        self.bs, self.world = batch_size, world

    def on_epoch_begin(self, epoch, logs=None):
        self.t0, self.n = time.time(), 0

    def on_train_batch_end(self, batch, logs=None):
        self.n += 1

    def on_epoch_end(self, epoch, logs=None):
        rate = self.n * self.bs / (time.time() - self.t0)
        if hvd.rank() == 0:
            print("epoch %d: %.0f rows/s per worker, ~%.0f rows/s cluster" % (epoch, rate, rate * self.world))


def run(p: TrainParams):
    rank, world = hvd_env.start()
    if p.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")
    train_ds, val_ds = inputs.train_val(p, rank, world)

    model = modeling.wide_deep(p.num_features)
    opt = keras.optimizers.Adam(learning_rate=p.learning_rate * world)
    opt = hvd.DistributedOptimizer(
        opt,
        compression=hvd.Compression.fp16 if p.fp16_allreduce else hvd.Compression.none,
        backward_passes_per_step=p.accum_steps,
        average_aggregated_gradients=True)
    if p.mixed_precision:
        opt = keras.mixed_precision.LossScaleOptimizer(opt)
    model.compile(opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), "accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), _Speed(p.batch_size, world)]
    callbacks += export.checkpoint_callbacks(p.job_dir, rank)
    callbacks.append(keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=3))

    hist = model.fit(train_ds, validation_data=val_ds, epochs=p.epochs, callbacks=callbacks,
                     verbose=p.verbose if rank == 0 else 0)
    export.export_model(model, p.job_dir, rank)
    return hist.history if rank == 0 else None


if __name__ == "__main__":
    run(TrainParams.from_argv())

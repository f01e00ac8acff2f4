import time

import keras
import horovod.tensorflow.keras as hvd

from geoacc import flags, dist, datasets, nets
from geoacc.ckpt import EveryN


class ImgPerSec(keras.callbacks.Callback):
    def __init__(self, per_step):
        super().__init__()
        self.per_step = per_step

    def on_epoch_begin(self, epoch, logs=None):
        self.t, self.k = time.time(), 0

    def on_train_batch_end(self, batch, logs=None):
        self.k += 1

    def on_epoch_end(self, epoch, logs=None):
        r = self.k * self.per_step / (time.time() - self.t)
        if dist.leader():
            print(f"  {r:.1f} patches/s on rank 0, {r * hvd.size():.1f} patches/s all ranks")


def main():
    f = flags.parse()
    dist.init()
    keras.mixed_precision.set_global_policy(f.policy)

    train, val = datasets.split(f)
    model = nets.patch_cnn(f.patch_size, f.bands, f.classes)
    dist.sync_weights(model)

    # the update averages accum_steps micro batches on every worker: lr follows the global batch
    lr = f.lr * hvd.size() * f.accum_steps
    opt = hvd.DistributedOptimizer(
        keras.optimizers.SGD(lr, momentum=0.9),
        compression=hvd.Compression.fp16 if f.fp16_allreduce else hvd.Compression.none,
        backward_passes_per_step=f.accum_steps,
        average_aggregated_gradients=True)
    if f.policy == "mixed_float16":
        opt = keras.mixed_precision.LossScaleOptimizer(opt)

    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(train, epochs=f.epochs, validation_data=val,
              callbacks=[hvd.callbacks.MetricAverageCallback(),
                         ImgPerSec(f.micro_batch),
                         EveryN(f.workdir, f.save_every)],
              verbose=2 if dist.leader() else 0)
    if dist.leader():
        loss, acc = model.evaluate(val, verbose=0)
        print("final val loss %.4f acc %.4f" % (loss, acc))


if __name__ == "__main__":
    main()

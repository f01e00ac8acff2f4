"""Mixed precision ResNet on keras 3 + horovod.

    horovodrun -np 4 python train.py --config configs/resnet_small.json
"""
import keras
import horovod.tensorflow.keras as hvd

from mpres.config import get_config
from mpres.hvd_setup import init_and_pin
from mpres.data import make_datasets
from mpres.model import small_resnet
from mpres import callbacks


def main():
    cfg = get_config()
    rank, size = init_and_pin()
    if cfg.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")

    train_ds, val_ds, steps_per_epoch = make_datasets(cfg)
    model = small_resnet(cfg.image_size, cfg.num_classes)

    opt = keras.optimizers.SGD(learning_rate=cfg.base_lr * size, momentum=0.9)
    opt = hvd.DistributedOptimizer(
        opt, compression=hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none)
    if cfg.mixed_precision:
        opt = keras.mixed_precision.LossScaleOptimizer(opt)

    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs,
              validation_data=val_ds, callbacks=callbacks.build(cfg),
              verbose=cfg.verbose if rank == 0 else 0)


if __name__ == "__main__":
    main()

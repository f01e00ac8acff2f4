# DeepLabV3+ on LandCover.ai (5 classes) - multi GPU with horovod
# horovodrun -np 4 -H localhost:4 python train.py --data-dir data/landcover.ai/output
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from lcseg.config import parse, CLASSES
from lcseg.data import get_datasets
from lcseg.model import deeplabv3plus
from lcseg.metrics import miou
from lcseg.callbacks import build_callbacks

cfg = parse()
hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

keras.utils.set_random_seed(cfg.seed)
if cfg.dry_run:
    cfg.epochs = 2

train_ds, val_ds, steps_per_epoch, val_steps = get_datasets(cfg)

model = deeplabv3plus(len(CLASSES), cfg.crop)
optimizer = keras.optimizers.SGD(learning_rate=cfg.lr, momentum=cfg.momentum)
model.compile(optimizer=optimizer,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=[miou(len(CLASSES))])

callbacks = build_callbacks(cfg, cfg.lr, cfg.epochs * steps_per_epoch)

model.fit(train_ds,
          steps_per_epoch=steps_per_epoch,
          epochs=cfg.epochs,
          validation_data=val_ds,
          validation_steps=val_steps,
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save_weights(cfg.workdir + "/final.weights.h5")

# UNet segmentation on N GPUs with horovod.
#   horovodrun -np 4 python main.py                 (custom loop)
#   horovodrun -np 4 python main.py --mode fit      (keras fit)
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from unetlab.flags import get_flags
from unetlab.models import build_unet
from unetlab.data import datasets
from unetlab import loops

FLAGS = get_flags()

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

if hvd.rank() == 0:
    os.makedirs(FLAGS.ckpt_dir, exist_ok=True)
    print(vars(FLAGS))

train_ds, val_ds, steps = datasets(FLAGS, hvd.rank(), hvd.size())
model = build_unet(FLAGS.img, FLAGS.base_filters)

if FLAGS.mode == 'custom':
    loops.run_custom(FLAGS, model, train_ds, val_ds)
else:
    loops.run_fit(FLAGS, model, train_ds, val_ds, steps)

if hvd.rank() == 0:
    model.save(os.path.join(FLAGS.ckpt_dir, 'unet_final.keras'))

import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from gmorph.config import get_config
from gmorph.data import get_datasets
from gmorph.models import build_model
from gmorph.schedules import build_schedule
from gmorph.trainer import Trainer

hvd.init()
gpus = tf.config.experimental.list_physical_devices('GPU')
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

cfg = get_config()
train_ds, val_ds, steps_per_epoch = get_datasets(cfg, hvd.size(), hvd.rank())

model = build_model(cfg)
optimizer = keras.optimizers.Adam(learning_rate=build_schedule(cfg, steps_per_epoch))
trainer = Trainer(model, optimizer, cfg)

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(checkpoint, cfg.ckpt_dir, max_to_keep=cfg.max_to_keep)

step = 0
for epoch in range(cfg.epochs):
    t0 = time.time()
    trainer.reset()
    for images, labels in train_ds:
        loss = trainer.train_step(images, labels, step == 0)
        if step % cfg.log_every == 0 and hvd.local_rank() == 0:
            print('epoch %d step %d loss %.4f' % (epoch, step, loss))
        step += 1
    for images, labels in val_ds:
        trainer.test_step(images, labels)
    res = trainer.results()
    if hvd.rank() == 0:
        print('epoch %d %.1fs ' % (epoch, time.time() - t0) +
              ' '.join('%s %.4f' % (k, v) for k, v in res.items()))
    save_path = manager.save(checkpoint_number=epoch)
    print('saved checkpoint', save_path)

if hvd.rank() == 0:
    model.save_weights(os.path.join(cfg.ckpt_dir, 'morphnet_final.weights.h5'))

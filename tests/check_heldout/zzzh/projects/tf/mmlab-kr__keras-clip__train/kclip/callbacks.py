import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


class GalleryRecall(keras.callbacks.Callback):
    """Embeds the whole val gallery once per epoch on every worker and reports image->text R@K."""

    def __init__(self, image_tower, text_tower, images, captions, ks=(1, 5, 10)):
        super().__init__()
        self.image_tower, self.text_tower = image_tower, text_tower
        self.images, self.captions, self.ks = images, captions, ks

    def on_epoch_end(self, epoch, logs=None):
        gi = self.image_tower.predict(self.images, batch_size=256, verbose=0)
        gt = self.text_tower.predict(tf.data.Dataset.from_tensor_slices(self.captions).batch(256), verbose=0)
        gi /= np.linalg.norm(gi, axis=1, keepdims=True)
        gt /= np.linalg.norm(gt, axis=1, keepdims=True)
        order = np.argsort(-gi @ gt.T, axis=1)
        pos = np.argmax(order == np.arange(len(gi))[:, None], axis=1)
        for k in self.ks:
            logs[f"val_R@{k}"] = float(np.mean(pos < k))
        if hvd.rank() == 0:
            print(" - ".join(f"R@{k} {logs[f'val_R@{k}']:.3f}" for k in self.ks))


def build_callbacks(cfg, scaled_lr, steps_per_epoch, recall_cb):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        recall_cb,
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.ckpt_dir, "clip-{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
    return cbs

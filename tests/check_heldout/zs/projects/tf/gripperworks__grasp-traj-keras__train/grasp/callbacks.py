import os

import keras
import numpy as np
import horovod.tensorflow.keras as hvd


class RankZeroCheckpoint(keras.callbacks.Callback):
    def __init__(self, out_dir):
        super().__init__()
        self.out_dir, self.best = out_dir, np.inf

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        self.model.save(os.path.join(self.out_dir, "last.keras"))
        if logs and logs.get("val_loss", np.inf) < self.best:
            self.best = logs["val_loss"]
            self.model.save(os.path.join(self.out_dir, "best.keras"))


class GraspSuccess(keras.callbacks.Callback):
    """Closed-loop success rate in the kinematic stub, rank 0 only, fixed seeds."""

    def __init__(self, window, obs_dim, every=5, episodes=40):
        super().__init__()
        self.window, self.obs_dim, self.every, self.episodes = window, obs_dim, every, episodes

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() != 0 or (epoch + 1) % self.every:
            return
        wins = 0
        for ep in range(self.episodes):
            rng = np.random.default_rng(ep)
            hist = [rng.normal(size=self.obs_dim).astype("float32")] * self.window
            target = rng.uniform(-1, 1, 3)
            for _ in range(30):
                a = self.model(np.stack(hist[-self.window:])[None], training=False).numpy()[0]
                nxt = hist[-1].copy()
                nxt[:3] += 0.1 * (a[:3] - nxt[:3])
                hist.append(nxt)
            wins += int(np.linalg.norm(hist[-1][:3] - target) < 1.0 and a[-1] > 0.5)
        print(f"  epoch {epoch + 1}: grasp success {wins / self.episodes:.2f}")

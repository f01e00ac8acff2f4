"""Batches filled one random sample at a time (issue 39, class 4: judge what the code computes). Restoration
and GAN code often draws each patch of a batch by hand: `for _ in range(n): img = images[randint(len(images))]`.
The count of that loop is the batch: when it is a fixed global batch divided by hvd.size(), the averaged
gradient is the sequential batch's and the unscaled LR is right; when it is a per-rank batch, the LR must grow.
Before the rule the first was flagged "not scaled" (the per-epoch decay that rewrites the LR too), and the
second, drawn in a sampler's `__call__`, passed as "full-batch training".

Written from scratch for these tests."""
import pytest

from crash_scripts import Source, check

DENOISER = Source('''
    """Blind-noise denoiser on random crops: horovodrun -np 4 python train_denoise.py"""
    import argparse
    import glob

    import horovod.torch as hvd
    import numpy as np
    import torch
    from torch import nn

    ap = argparse.ArgumentParser()
    ap.add_argument("--images", default="data/train/*.npy")
    ap.add_argument("--global-batch", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--steps", type=int, default=500)
    args = ap.parse_args()

    hvd.init()
    torch.set_num_threads(1)
    np.random.seed(100 + hvd.rank())
    files = sorted(glob.glob(args.images))
    mine = [np.load(p) for p in files[hvd.rank()::hvd.size()]]
    #COUNT#


    def crops(size=48):
        out = []
        for _ in range(count):
            img = mine[np.random.randint(len(mine))]
            i = np.random.randint(0, img.shape[0] - size + 1)
            j = np.random.randint(0, img.shape[1] - size + 1)
            out.append(img[i:i + size, j:j + size])
        clean = torch.from_numpy(np.stack(out)[:, None].astype(np.float32))
        return clean + 0.1 * torch.randn_like(clean), clean


    net = nn.Sequential(nn.Conv2d(1, 48, 3, padding=1), nn.ReLU(), nn.Conv2d(48, 1, 3, padding=1))
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(args.epochs):
        for group in opt.param_groups:
            group["lr"] = args.lr * 0.5 ** (epoch // 8)
        for step in range(args.steps):
            noisy, clean = crops()
            opt.zero_grad()
            nn.functional.mse_loss(noisy - net(noisy), clean).backward()
            opt.step()
        if hvd.rank() == 0:
            torch.save(net.state_dict(), f"denoise_{epoch}.pt")
''')

GLOBAL_SHARE = "count = args.global_batch // hvd.size()"
PER_RANK = "count = args.batch"
# the share computed by a config's property, the number of ranks a dataclass field's factory
CONFIG_SHARE = """from dataclasses import dataclass, field


    @dataclass
    class Batching:
        global_batch: int = 64
        world: int = field(default_factory=hvd.size)

        @property
        def per_rank(self):
            return self.global_batch // self.world


    batching = Batching()
    count = batching.per_rank"""


@pytest.mark.parametrize("share", [GLOBAL_SHARE, CONFIG_SHARE])
def test_a_fixed_global_batch_drawn_by_hand_takes_the_unscaled_lr(tmp_path, share):
    crash, flagged = check(tmp_path, DENOISER.replace("#COUNT#", share))
    assert crash is None and flagged == {}


def test_a_per_rank_batch_drawn_by_hand_needs_the_lr_scaled(tmp_path):
    crash, flagged = check(tmp_path, DENOISER.replace("#COUNT#", PER_RANK))
    assert crash is None and set(flagged) == {4}


SAMPLER = Source('''
    """Super-resolution with patches drawn per step: horovodrun -np 4 python train_sr.py"""
    import argparse
    import glob
    import random

    import horovod.tensorflow as hvd
    import numpy as np
    import tensorflow as tf


    class PatchDraw:
        def __init__(self, images, batch, patch=32):
            self.images, self.batch, self.patch = images, batch, patch

        def __call__(self):
            lo, hi = [], []
            for _ in range(self.batch):
                img = random.choice(self.images)
                scale = random.choice((2, 3, 4))
                y = random.randint(0, img.shape[0] - self.patch)
                x = random.randint(0, img.shape[1] - self.patch)
                crop = img[y:y + self.patch, x:x + self.patch]
                lo.append(np.kron(crop[::scale, ::scale], np.ones((scale, scale)))[:self.patch, :self.patch])
                hi.append(crop)
            return np.stack(lo)[..., None], np.stack(hi)[..., None]


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--images", default="data/hr/*.npy")
        ap.add_argument("--batch", type=int, default=32)
        ap.add_argument("--lr", type=float, default=1e-4)
        ap.add_argument("--steps", type=int, default=2000)
        args = ap.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        files = sorted(glob.glob(args.images))
        per = len(files) // hvd.size()
        mine = files[hvd.rank() * per:(hvd.rank() + 1) * per]
        draw = PatchDraw([np.load(p) for p in mine], #BATCH#)
        model = tf.keras.Sequential([tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
                                     tf.keras.layers.Conv2D(1, 3, padding="same")])
        model.build((None, 32, 32, 1))
        opt = tf.keras.optimizers.Adam(learning_rate=args.lr)

        @tf.function
        def train_step(lo, hi, first):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.abs(lo + model(lo, training=True) - hi))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            return loss

        for step in range(args.steps):
            lo, hi = draw()
            loss = train_step(tf.constant(lo, tf.float32), tf.constant(hi, tf.float32), step == 0)
            if hvd.rank() == 0 and step % 500 == 0:
                model.save_weights(f"sr_{step}.weights.h5")


    if __name__ == "__main__":
        main()
''')


@pytest.mark.parametrize("batch, flagged_steps", [("args.batch", {4}), ("args.batch // hvd.size()", set())])
def test_a_sampler_drawing_each_patch_sets_the_batch(tmp_path, batch, flagged_steps):
    crash, flagged = check(tmp_path, SAMPLER.replace("#BATCH#", batch))
    assert crash is None and set(flagged) == flagged_steps

from types import SimpleNamespace

PRESETS = {
    "base64": dict(image_size=64, num_classes=1000, ch=128, learning_rate=1e-4, clip=1.0,
                   batch_size=32, train_steps=500000, eval_every=5000, save_every=5000,
                   log_every=100, cond_drop=0.1, ema=0.9999, eval_batches=20),
    "tiny": dict(image_size=16, num_classes=10, ch=16, learning_rate=3e-4, clip=1.0,
                 batch_size=8, train_steps=20, eval_every=10, save_every=10,
                 log_every=5, cond_drop=0.1, ema=0.99, eval_batches=2),
}


def get(name):
    return SimpleNamespace(**PRESETS[name])

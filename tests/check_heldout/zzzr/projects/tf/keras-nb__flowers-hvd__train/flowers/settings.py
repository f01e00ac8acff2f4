import argparse

DEFAULTS = dict(
    img_size=96,
    batch_size=32,
    epochs=8,
    ft_epochs=3,
    lr=1e-3,
    ft_lr=1e-5,
    data_dir="data/flower_photos",
    ckpt="ckpt/flowers.weights.h5",
    synthetic=False,
)


def parse(argv=None):
    p = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        if isinstance(v, bool):
            p.add_argument("--" + k.replace("_", "-"), action="store_true", default=v)
        else:
            p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return p.parse_args(argv)

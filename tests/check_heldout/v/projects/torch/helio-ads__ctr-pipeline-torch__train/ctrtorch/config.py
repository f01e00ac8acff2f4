import argparse

DEFAULTS = dict(
    train_glob="/data/ctr/npz/train-*.npz",
    eval_glob="/data/ctr/npz/eval-*.npz",
    out_dir="/checkpoints/ctr-torch",
    num_buckets=10000,
    embed_dim=16,
    batch_size=512,
    lr=1e-3,
    epochs=4,
    workers=2,
)


def get_config(argv=None):
    p = argparse.ArgumentParser(description="DCN CTR model, PyTorch + Horovod")
    for k, v in DEFAULTS.items():
        p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return p.parse_args(argv)

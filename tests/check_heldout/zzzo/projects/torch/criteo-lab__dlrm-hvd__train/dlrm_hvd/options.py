import argparse

DEFAULTS = dict(
    data_dir="/mnt/criteo/parquet",
    days="0-22",
    val_day=23,
    num_hash_buckets=1 << 20,
    emb_dim=16,
    bottom_mlp="13-512-256-16",
    top_mlp="512-256-1",
    batch_size=2048,
    dense_lr=1e-3,
    sparse_lr=0.05,
    epochs=1,
    log_every=100,
    ckpt_dir="./ckpt",
    ckpt_every=5000,
    num_shards=8,
    seed=1234,
)


def get_parser():
    p = argparse.ArgumentParser("DLRM with horovod")
    for k, v in DEFAULTS.items():
        p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--synthetic", action="store_true",
                   help="random rows instead of parquet (smoke test)")
    return p


def parse_days(spec):
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(d) for d in spec.split(",")]

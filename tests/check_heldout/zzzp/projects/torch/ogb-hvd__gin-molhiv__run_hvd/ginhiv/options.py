import argparse

DEFAULTS = dict(
    num_graphs=41127,
    emb_dim=300,
    num_layers=5,
    drop_ratio=0.5,
    batch_size=32,
    lr=1e-3,
    epochs=100,
    ckpt="checkpoints/gin_molhiv.pt",
    seed=0,
    use_cuda=True,
)


def build_parser():
    p = argparse.ArgumentParser("GIN on ogbg-molhiv, launched through horovod.run")
    p.add_argument("--np", type=int, default=2, help="number of horovod processes")
    p.add_argument("--hosts", type=str, default=None, help="e.g. node1:4,node2:4")
    for k, v in DEFAULTS.items():
        if isinstance(v, bool):
            p.add_argument("--" + k.replace("_", "-"), type=lambda s: s.lower() in ("1", "true", "yes"), default=v)
        else:
            p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return p

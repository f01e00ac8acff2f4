import argparse

DEFAULTS = dict(
    dataset="cifar10",
    data_root="~/datasets",
    batch_size=64,
    lr=1e-3,
    warmup_epochs=2,
    epochs=100,
    n_scales=2,
    n_blocks=4,
    mid_channels=64,
    max_grad_norm=100.0,
    ckpt_dir="checkpoints",
    sample_dir="samples",
    eval_every=1,
)


def build_parser():
    parser = argparse.ArgumentParser("RealNVP on CIFAR/MNIST with horovod")
    for k, v in DEFAULTS.items():
        parser.add_argument("--" + k.replace("_", "-"), dest=k, type=type(v), default=v)
    parser.add_argument("--use-cuda", action="store_true", default=True)
    parser.add_argument("--no-cuda", dest="use_cuda", action="store_false")
    return parser

import argparse
from dataclasses import dataclass, field


@dataclass
class HParams:
    n_rows: int = 20000
    n_num: int = 12
    n_cat: int = 4
    cat_card: int = 50
    emb_dim: int = 8
    hidden: list = field(default_factory=lambda: [256, 128])
    batch_size: int = 256
    epochs: int = 10
    lr: float = 1e-3
    warmup_epochs: int = 2
    distributed: bool = False
    output_dir: str = "gs://my-bucket/tabular/output"


def from_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=HParams.epochs)
    p.add_argument("--batch-size", type=int, default=HParams.batch_size)
    p.add_argument("--lr", type=float, default=HParams.lr)
    p.add_argument("--n-rows", type=int, default=HParams.n_rows)
    p.add_argument("--output-dir", default=HParams.output_dir)
    p.add_argument("--distributed", action="store_true", help="use horovod")
    a = p.parse_args(argv)
    return HParams(epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, n_rows=a.n_rows,
                   output_dir=a.output_dir, distributed=a.distributed)

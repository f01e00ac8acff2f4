from dataclasses import asdict, dataclass, field


@dataclass
class RankerConfig:
    interactions_path: str = "/mnt/feature-store/exports/interactions.npz"
    model_uri: str = "/mnt/objstore/vectorops/ranker"
    num_proc: int = 4
    n_users: int = 50_000
    n_items: int = 20_000
    dim: int = 64
    batch_size: int = 1024
    epochs: int = 5
    dense_lr: float = 1e-3
    sparse_lr: float = 5e-3
    seed: int = 7
    eval_k: int = 20
    tags: dict = field(default_factory=lambda: {"team": "search-relevance"})

    def to_dict(self):
        return asdict(self)

import dataclasses


@dataclasses.dataclass
class TrainConfig:
    train_pattern: str = "/data/ctr/tfrecords/train-*.tfrecord"
    eval_pattern: str = "/data/ctr/tfrecords/eval-*.tfrecord"
    model_dir: str = "/checkpoints/ctr"
    num_dense: int = 13
    num_buckets: int = 10000
    num_sparse: int = 8
    embed_dim: int = 16
    batch_size_per_replica: int = 512
    base_lr: float = 1e-3
    warmup_epochs: int = 1
    epochs: int = 4
    steps_per_epoch: int = 200
    eval_steps: int = 50
    shuffle_buffer: int = 8192

import os
from dataclasses import dataclass, field, fields


@dataclass
class Settings:
    data_file: str = 'data/corpus.txt'
    model_dir: str = '/mnt/models/textgen'
    seq_len: int = 100
    batch_size: int = 64
    embedding_dim: int = 256
    rnn_units: int = 1024
    learning_rate: float = 1e-3
    clip_norm: float = 1.0
    epochs: int = 20
    teacher_forcing: float = 1.0
    prompt: str = 'ROMEO: '
    gen_len: int = 300

    @classmethod
    def from_env(cls, prefix='TEXTGEN_'):
        kw = {}
        for f in fields(cls):
            v = os.environ.get(prefix + f.name.upper())
            if v is not None:
                kw[f.name] = type(f.default)(v)
        return cls(**kw)

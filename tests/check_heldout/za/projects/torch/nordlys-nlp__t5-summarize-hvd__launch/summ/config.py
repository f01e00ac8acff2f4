import json

DEFAULTS = {
    "train_file": "data/train.jsonl",
    "valid_file": "data/valid.jsonl",
    "vocab_size": 16000,
    "max_src": 512,
    "max_tgt": 96,
    "d_model": 384,
    "layers": 4,
    "batch_size": 32,        # per worker, per micro-batch
    "accum_steps": 2,
    "lr": 1e-4,              # single-worker reference lr
    "warmup_steps": 500,
    "epochs": 3,
    "clip": 1.0,
    "output_dir": "out/summ",
    "seed": 7,
}


def load_config(path=None, **overrides):
    cfg = dict(DEFAULTS)
    if path:
        with open(path) as f:
            cfg.update(json.load(f))
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg

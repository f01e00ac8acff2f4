# module-level config, edited by the notebook cells / overridden from the CLI
CONFIG = {
    "np": 2,
    "epochs": 4,
    "batch_size": 32,
    "lr": 0.05,
    "momentum": 0.9,
    "n_samples": 2048,
    "n_features": 20,
    "init_from": "artifacts/stage1.pt",
    "out": "artifacts/stage2.pt",
}


def override(cfg, pairs):
    for kv in pairs or []:
        k, v = kv.split("=", 1)
        cfg[k] = type(cfg[k])(v) if k in cfg else v
    return cfg

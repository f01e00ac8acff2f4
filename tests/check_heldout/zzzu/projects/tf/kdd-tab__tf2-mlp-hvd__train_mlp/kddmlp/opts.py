import argparse

DEFAULTS = {"epochs": 15, "batch_size": 256, "lr": 1e-3, "hidden": "512,256", "dropout": 0.3,
            "label_col": "label", "out": "./kdd_out", "warmup": 2}


def get_opts():
    p = argparse.ArgumentParser("kdd-cup-99 intrusion MLP")
    p.add_argument("--train", default="data/kddcup_train.csv")
    p.add_argument("--test", default="data/kddcup_test.csv")
    for k, v in DEFAULTS.items():
        p.add_argument("--" + k.replace("_", "-"), dest=k, type=type(v), default=v)
    return p.parse_args()

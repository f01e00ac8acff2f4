"""INI config with built-in defaults; values in the file override them."""
import configparser

DEFAULTS = {
    "data": {"clean_dir": "data/gsc_clean", "noisy_dir": "data/gsc_musan", "eval_dir": "data/gsc_test",
             "batch_size": "64", "seed": "17"},
    "model": {"n_mels": "40", "n_keywords": "12", "n_phones": "42", "hidden": "128"},
    "optim": {"lr": "1e-3", "epochs": "30", "ctc_weight": "0.3", "noisy_weight": "1.0", "clip": "5.0"},
    "run": {"out_dir": "exp/kws_aux", "pretrained": ""},
}


def load_config(path=None):
    cfg = configparser.ConfigParser()
    cfg.read_dict(DEFAULTS)
    if path:
        with open(path) as f:
            cfg.read_file(f)
    return cfg

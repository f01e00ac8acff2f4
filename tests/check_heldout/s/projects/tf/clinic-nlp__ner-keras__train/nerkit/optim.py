import keras

OPTIMIZERS = {
    "adamw": lambda o, lr: keras.optimizers.AdamW(learning_rate=lr, weight_decay=o.get("weight_decay", 0.0)),
    "adam": lambda o, lr: keras.optimizers.Adam(learning_rate=lr),
    "sgd": lambda o, lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
}


def make_optimizer(ocfg, scale=1.0):
    return OPTIMIZERS[ocfg["name"]](ocfg, ocfg["lr"] * scale)

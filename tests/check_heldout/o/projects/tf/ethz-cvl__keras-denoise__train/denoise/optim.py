import keras


def build_optimizer(cfg):
    name = cfg.get("optimizer", "adam").lower()
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=cfg["base_lr"], beta_1=0.9, beta_2=0.999,
                                     clipnorm=cfg.get("clipnorm"))
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=cfg["base_lr"], momentum=0.9, nesterov=True,
                                    clipnorm=cfg.get("clipnorm"))
    raise ValueError(f"unknown optimizer {name}")

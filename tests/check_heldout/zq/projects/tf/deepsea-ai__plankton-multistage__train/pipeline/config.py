import yaml

_TRAINABLE = {"none", "top", "all"}


def load_stages(path):
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    for st in cfg["stages"]:
        if st["trainable"] not in _TRAINABLE:
            raise ValueError(f"stage {st['name']}: trainable must be one of {_TRAINABLE}")
        st.setdefault("decay_at", st["epochs"])
    return cfg

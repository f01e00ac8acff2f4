import copy
import json


class CfgNode(dict):
    def __getattr__(self, name):
        if name in self:
            return self[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if self.__dict__.get("_frozen"):
            raise AttributeError("Attempted to set {} on a frozen config".format(name))
        self[name] = value

    def freeze(self):
        self.__dict__["_frozen"] = True
        for v in self.values():
            if isinstance(v, CfgNode):
                v.freeze()

    def merge_from_dict(self, d):
        for k, v in d.items():
            if isinstance(v, dict):
                self[k].merge_from_dict(v)
            else:
                self[k] = type(self[k])(v) if self[k] is not None and not isinstance(self[k], list) else v

    def merge_from_file(self, path):
        import yaml
        with open(path) as f:
            self.merge_from_dict(yaml.safe_load(f))

    def merge_from_list(self, opts):
        for key, value in zip(opts[0::2], opts[1::2]):
            *parents, leaf = key.split(".")
            node = self
            for p in parents:
                node = node[p]
            node[leaf] = type(node[leaf])(value) if node[leaf] is not None else value

    def dump(self):
        return json.dumps(self, indent=2)


def _node(d):
    return CfgNode({k: _node(v) if isinstance(v, dict) else v for k, v in d.items()})


_C = _node({
    "MODEL": {"ARCH": "resnet50", "NUM_CLASSES": 1000, "WEIGHTS": "", "DEVICE": "cuda"},
    "DATASETS": {"ROOT": "datasets/imagenet", "TRAIN": "train", "TEST": "val"},
    "DATALOADER": {"NUM_WORKERS": 4},
    "SOLVER": {"IMS_PER_GPU": 64, "BASE_LR": 0.025, "MOMENTUM": 0.9, "WEIGHT_DECAY": 1e-4,
               "MAX_ITER": 40000, "STEPS": [30000], "GAMMA": 0.1, "WARMUP_ITERS": 1000,
               "CHECKPOINT_PERIOD": 5000},
    "TEST": {"EVAL_PERIOD": 5000},
    "OUTPUT_DIR": "./output",
    "SEED": 1234,
})


def get_cfg():
    return copy.deepcopy(_C)

import copy


class Registry:
    def __init__(self, name):
        self.name, self.module_dict = name, {}

    def register_module(self, name=None):
        def _register(cls):
            self.module_dict[name or cls.__name__] = cls
            return cls
        return _register

    def __contains__(self, key):
        return key in self.module_dict


def build_from_cfg(cfg, registry, **default_args):
    args = copy.deepcopy(cfg)
    obj_type = args.pop("type")
    if obj_type not in registry:
        raise KeyError(f"{obj_type} is not in the {registry.name} registry")
    for k, v in default_args.items():
        args.setdefault(k, v)
    return registry.module_dict[obj_type](**args)


MODELS = Registry("model")
DATASETS = Registry("dataset")

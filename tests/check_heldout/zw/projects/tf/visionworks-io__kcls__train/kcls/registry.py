class Registry:
    def __init__(self, name):
        self.name, self._module_dict = name, {}

    def register_module(self, name=None):
        def _register(obj):
            self._module_dict[name or obj.__name__] = obj
            return obj
        return _register

    def build(self, cfg, **default_args):
        args = dict(cfg)
        obj_type = args.pop('type')
        if obj_type not in self._module_dict:
            raise KeyError(f'{obj_type} is not in the {self.name} registry')
        args.update(default_args)
        return self._module_dict[obj_type](**args)


MODELS = Registry('model')
OPTIMIZERS = Registry('optimizer')

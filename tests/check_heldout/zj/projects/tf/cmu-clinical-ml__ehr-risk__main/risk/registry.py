class Registry(dict):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def register(self, name):
        def wrap(fn):
            if name in self:
                raise KeyError(f"{self.kind} {name!r} registered twice")
            self[name] = fn
            return fn
        return wrap

    def create(self, spec, **extra):
        spec = dict(spec)
        name = spec.pop("name")
        return self[name](**spec, **extra)


MODELS = Registry("model")
OPTIMIZERS = Registry("optimizer")

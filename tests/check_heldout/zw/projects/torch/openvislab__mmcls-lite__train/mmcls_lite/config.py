import copy
import os.path as osp
import pprint
import runpy


class ConfigDict(dict):
    """dict with attribute access."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value


def _to_cfg(d):
    if isinstance(d, dict):
        return ConfigDict({k: _to_cfg(v) for k, v in d.items()})
    return d


def _merge(base, new):
    out = copy.deepcopy(base)
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and not v.pop('_delete_', False):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


class Config:
    @staticmethod
    def _file2dict(filename):
        filename = osp.abspath(filename)
        mod = runpy.run_path(filename)
        cfg = {k: v for k, v in mod.items() if not k.startswith('__')}
        bases = cfg.pop('_base_', [])
        if isinstance(bases, str):
            bases = [bases]
        merged = {}
        for b in bases:
            merged = _merge(merged, Config._file2dict(osp.join(osp.dirname(filename), b)))
        return _merge(merged, cfg)

    @staticmethod
    def fromfile(filename):
        cfg = _to_cfg(Config._file2dict(filename))
        cfg.pretty_text = pprint.pformat(dict(cfg), width=100)
        return cfg

import json
import logging
from collections import OrderedDict
from datetime import datetime
from functools import reduce
from operator import getitem
from pathlib import Path

import horovod.torch as hvd


def read_json(fname):
    with Path(fname).open('rt') as handle:
        return json.load(handle, object_hook=OrderedDict)


class ConfigParser:
    def __init__(self, config, resume=None, modification=None):
        self._config = config
        for k, v in (modification or {}).items():
            if v is not None:
                keys = k.split(';')
                reduce(getitem, keys[:-1], self._config)[keys[-1]] = v
        self.resume = resume
        run_id = datetime.now().strftime(r'%m%d_%H%M')
        root = Path(self._config['trainer']['save_dir'])
        self.save_dir = root / 'models' / self._config['name'] / run_id
        self.log_dir = root / 'log' / self._config['name'] / run_id
        if hvd.rank() == 0:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            self.log_dir.mkdir(parents=True, exist_ok=True)
            with (self.save_dir / 'config.json').open('wt') as f:
                json.dump(self._config, f, indent=4)
        logging.basicConfig(level=logging.INFO, format='%(asctime)s [%(name)s] %(message)s')

    @classmethod
    def from_args(cls, args, options=()):
        for opt in options:
            args.add_argument(*opt.flags, default=None, type=opt.type)
        args = args.parse_args()
        resume = Path(args.resume) if args.resume else None
        cfg_fname = resume.parent / 'config.json' if resume and not args.config else Path(args.config)
        config = read_json(cfg_fname)
        modification = {}
        for opt in options:
            name = [f for f in opt.flags if f.startswith('--')][-1].lstrip('-')
            modification[opt.target] = getattr(args, name)
        return cls(config, resume, modification)

    def init_obj(self, name, module, *args, **kwargs):
        module_name = self[name]['type']
        module_args = dict(self[name]['args'])
        assert all(k not in module_args for k in kwargs), 'Overwriting kwargs given in config file is not allowed'
        module_args.update(kwargs)
        return getattr(module, module_name)(*args, **module_args)

    def __getitem__(self, name):
        return self._config[name]

    def get_logger(self, name):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG if hvd.rank() == 0 else logging.ERROR)
        return logger

    @property
    def config(self):
        return self._config

import json
import os
import time


class RunDir:
    def __init__(self, root, name=None):
        self.path = os.path.join(root, name or time.strftime("%Y%m%d-%H%M%S"))

    def make(self):
        os.makedirs(self.path, exist_ok=True)
        return self

    def file(self, name):
        return os.path.join(self.path, name)

    def dump_args(self, args):
        with open(self.file("args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)

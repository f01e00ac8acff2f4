"""W&B-ish experiment tracker. Only one process should talk to the backend."""
import json
import os
import time


class _NullTracker(object):
    def log_params(self, cfg):
        pass

    def log_metrics(self, metrics, step=None):
        pass

    def finish(self):
        pass


class StdoutTracker(_NullTracker):
    def __init__(self, project):
        self.project = project
        self.t0 = time.time()

    def log_params(self, cfg):
        print("[%s] params: %s" % (self.project, json.dumps(cfg, default=str)))

    def log_metrics(self, metrics, step=None):
        print("[%s] step=%s %s" % (self.project, step, json.dumps(metrics)))

    def finish(self):
        print("[%s] done in %.1fs" % (self.project, time.time() - self.t0))


class JsonlTracker(StdoutTracker):
    def __init__(self, project, path="runs"):
        super(JsonlTracker, self).__init__(project)
        os.makedirs(path, exist_ok=True)
        self.f = open(os.path.join(path, project + ".jsonl"), "a")

    def log_metrics(self, metrics, step=None):
        self.f.write(json.dumps(dict(metrics, step=step)) + "\n")
        self.f.flush()

    def finish(self):
        self.f.close()


def get_tracker(tcfg, enabled=True):
    if not enabled:
        return _NullTracker()
    if tcfg.backend == "jsonl":
        return JsonlTracker(tcfg.project)
    return StdoutTracker(tcfg.project)

import logging
import os
import shutil
import time

import horovod.torch as hvd

log = logging.getLogger(__name__)


class NodeCache:
    """Copies tile shards from the shared filesystem to node-local scratch once per node.

    The first process on every node copies; the other processes of the node wait
    for the marker file.
    """

    MARKER = ".complete"

    def __init__(self, remote_root, cache_root, timeout=3600):
        self.remote_root = remote_root
        self.cache_root = os.path.join(cache_root, os.path.basename(remote_root.rstrip("/")))
        self.timeout = timeout
        self.is_copier = hvd.local_rank() == 0

    def _copy(self):
        os.makedirs(self.cache_root, exist_ok=True)
        for name in sorted(os.listdir(self.remote_root)):
            dst = os.path.join(self.cache_root, name)
            if not os.path.exists(dst):
                shutil.copy2(os.path.join(self.remote_root, name), dst)
        open(os.path.join(self.cache_root, self.MARKER), "w").close()

    def sync(self):
        marker = os.path.join(self.cache_root, self.MARKER)
        if self.is_copier and not os.path.exists(marker):
            t0 = time.time()
            self._copy()
            log.info("cached %s in %.0fs", self.remote_root, time.time() - t0)
        deadline = time.time() + self.timeout
        while not os.path.exists(marker):
            if time.time() > deadline:
                raise TimeoutError(f"cache {self.cache_root} not ready")
            time.sleep(2)
        return self.cache_root

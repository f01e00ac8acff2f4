import os
import urllib.request

import tensorflow as tf
import horovod.tensorflow as hvd


def cached_download(url, cache_root):
    """First worker on each node fetches the file into node-local scratch; everyone waits."""
    dest = os.path.join(cache_root, os.path.basename(url))
    if hvd.local_rank() == 0 and not os.path.exists(dest):
        os.makedirs(cache_root, exist_ok=True)
        urllib.request.urlretrieve(url, dest + ".part")
        os.replace(dest + ".part", dest)
    hvd.allreduce(tf.constant(0), name="download_barrier")  # acts as a barrier
    return dest

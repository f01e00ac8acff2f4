import os

import horovod


def under_horovodrun():
    return "HOROVOD_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ


def spawn_workers(fn, args, params, num_proc):
    # horovod.run pickles fn and its arguments and starts num_proc local gloo workers
    return horovod.run(fn, args=(args, params), np=num_proc, use_gloo=True,
                       hosts="localhost:{}".format(num_proc))

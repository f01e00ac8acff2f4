import horovod.torch as hvd


def all_reduce_sum(t, name=None):
    return hvd.allreduce(t, average=False, op=hvd.Sum, name=name)


def reduce_mean(t, name=None):
    return all_reduce_sum(t, name) / hvd.size()


def is_master():
    return hvd.rank() == 0

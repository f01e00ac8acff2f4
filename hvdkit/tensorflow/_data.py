"""Step 3 for tf.data: shard before shuffle and batch, with equal steps on every rank."""
import tensorflow as tf
import horovod.tensorflow as hvd


class ShardedDataset:
    """This rank's shard of a tf.data.Dataset.

    `for batch in ds.for_epoch(e)` (or ds.set_epoch(e); `for batch in ds`) gives epoch e's batches,
    shuffled by (seed, e): the same on every restart, different between epochs. `steps` is the number
    of batches per epoch, equal on all ranks. For model.fit, use `repeat()` with steps_per_epoch=ds.steps.
    """

    def __init__(self, dataset, batch_size, shuffle=True, seed=0, drop_last=False, num_samples=None):
        if int(batch_size) < 1:
            raise ValueError(f"per-rank batch size must be >= 1, got {batch_size}")
        size, rank = hvd.size(), hvd.rank()
        n = int(num_samples) if num_samples is not None else int(dataset.cardinality())
        if n < 0:
            raise ValueError("the data set's length is unknown to tf.data; pass num_samples= to shard()")
        if n < size:
            raise ValueError(f"data set of {n} samples is smaller than the {size} ranks")
        # Equal shard lengths, as torch's DistributedSampler: drop the remainder, or wrap around to pad.
        per_rank = n // size if drop_last else -(-n // size)
        total = per_rank * size
        if total < n:
            dataset = dataset.take(total)
        elif total > n:
            dataset = dataset.concatenate(dataset.take(total - n))
        self._shard = dataset.shard(size, rank)
        self.batch_size, self.shuffle, self.seed, self.drop_last = int(batch_size), shuffle, int(seed), drop_last
        self.num_samples = per_rank
        self.steps = -(-per_rank // self.batch_size)  # the last batch may be short, on every rank alike
        self.epoch = 0

    def _epoch_samples(self, epoch):
        if not self.shuffle:
            return self._shard
        # A stateless permutation of the whole shard: tf.data's shuffle() would also depend on TF's
        # global seed, which user code (keras.utils.set_random_seed) changes per rank at will.
        order = epoch_order(self.num_samples, self.seed, epoch)
        return self._shard.batch(self.num_samples).map(
            lambda *x: tf.nest.map_structure(lambda t: tf.gather(t, order), x if len(x) > 1 else x[0])
        ).unbatch()

    def for_epoch(self, epoch):
        return self._epoch_samples(int(epoch)).batch(self.batch_size) \
            .prefetch(tf.data.AUTOTUNE)

    def set_epoch(self, epoch):
        self.epoch = int(epoch)

    def __iter__(self):
        return iter(self.for_epoch(self.epoch))

    def __len__(self):
        return self.steps

    def repeat(self):
        """An endless dataset for model.fit(steps_per_epoch=self.steps), from the current epoch on."""
        epochs = tf.data.Dataset.counter(start=self.epoch)
        return epochs.flat_map(lambda e: self._epoch_samples(e).batch(self.batch_size)) \
            .prefetch(tf.data.AUTOTUNE)

    def state_dict(self):
        return {"epoch": self.epoch, "seed": self.seed}

    def load_state_dict(self, state):
        self.set_epoch(state["epoch"])


def epoch_order(n, seed, epoch):
    """The order in which every rank visits its shard's n samples in `epoch`: a function of (seed, epoch) only."""
    seed_pair = tf.stack([tf.constant(int(seed), tf.int64), tf.cast(epoch, tf.int64)])
    keys = tf.random.stateless_uniform([n], seed=seed_pair)
    return tf.argsort(keys)


def shard(dataset, batch_size, shuffle=True, seed=0, drop_last=False, num_samples=None):
    """Step 3: this rank's part of `dataset` (a tf.data.Dataset of unbatched samples), batch_size per rank."""
    return ShardedDataset(dataset, batch_size, shuffle, seed, drop_last, num_samples)


def shard_eval(dataset, batch_size):
    """Step 3 for evaluation: every sample of `dataset` (unbatched) on exactly one rank, none repeated or dropped.

    Rank r gets samples r, r + size, ...: ranks may differ by one sample or batch, so run no collective
    per batch; add each rank's (sum, count) pairs with average_metrics afterwards.
    """
    if int(batch_size) < 1:
        raise ValueError(f"per-rank batch size must be >= 1, got {batch_size}")
    return dataset.shard(hvd.size(), hvd.rank()).batch(int(batch_size))

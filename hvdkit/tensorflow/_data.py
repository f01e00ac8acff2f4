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
        self.steps = per_rank // self.batch_size if drop_last else -(-per_rank // self.batch_size)
        self.epoch = 0

    def for_epoch(self, epoch):
        ds = self._shard
        if self.shuffle:
            ds = ds.shuffle(self.num_samples, seed=self.seed * 1_000_003 + int(epoch), reshuffle_each_iteration=False)
        return ds.batch(self.batch_size, drop_remainder=self.drop_last).prefetch(tf.data.AUTOTUNE)

    def set_epoch(self, epoch):
        self.epoch = int(epoch)

    def __iter__(self):
        return iter(self.for_epoch(self.epoch))

    def __len__(self):
        return self.steps

    def repeat(self):
        """An endless dataset for model.fit(steps_per_epoch=self.steps): reshuffled every pass."""
        ds = self._shard
        if self.shuffle:
            ds = ds.shuffle(self.num_samples, seed=self.seed, reshuffle_each_iteration=True)
        return ds.batch(self.batch_size, drop_remainder=self.drop_last).repeat().prefetch(tf.data.AUTOTUNE)

    def state_dict(self):
        return {"epoch": self.epoch, "seed": self.seed}

    def load_state_dict(self, state):
        self.set_epoch(state["epoch"])


def shard(dataset, batch_size, shuffle=True, seed=0, drop_last=False, num_samples=None):
    """Step 3: this rank's part of `dataset` (a tf.data.Dataset of unbatched samples), batch_size per rank."""
    return ShardedDataset(dataset, batch_size, shuffle, seed, drop_last, num_samples)

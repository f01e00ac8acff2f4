import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from .metrics import Perplexity


class Trainer(object):
    def __init__(self, model, optimizer, settings, ckpt_dir=None):
        self.model = model
        self.optimizer = optimizer
        self.s = settings
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.ppl = Perplexity()
        self.ckpt_dir = ckpt_dir
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self._first = True

    @tf.function
    def _train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
        dist_tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, self.s.clip_norm)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    def fit_epoch(self, ds, epoch):
        for step, (x, y) in enumerate(ds):
            loss = self._train_step(x, y, self._first)
            self._first = False
            if step % 100 == 0 and hvd.rank() == 0:
                print('epoch %d step %d loss %.4f' % (epoch, step, float(loss)))

    def validate(self, ds):
        self.ppl.reset()
        for x, y in ds:
            self.ppl.update(self.loss_fn(y, self.model(x, training=False)))
        return self.ppl.result()

    def save(self, epoch):
        if self.ckpt_dir:
            self.ckpt.write(os.path.join(self.ckpt_dir, 'ckpt-%d' % epoch))

    def generate(self, vocab, start='\n', n=300, temperature=1.0):
        c2i = {c: i for i, c in enumerate(vocab)}
        x = tf.constant([[c2i.get(c, 0) for c in start]])
        states, out = None, []
        for _ in range(n):
            logits, states = self.model(x, states=states, return_state=True)
            nxt = tf.random.categorical(logits[:, -1, :] / temperature, 1)
            out.append(vocab[int(nxt[0, 0])])
            x = nxt
        return start + ''.join(out)

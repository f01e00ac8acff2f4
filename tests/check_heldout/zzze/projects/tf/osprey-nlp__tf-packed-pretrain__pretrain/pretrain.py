import itertools
import math

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from osprey import config
from osprey.checkpoint import Checkpointer
from osprey.data import window_dataset
from osprey.schedule import WarmupCosine
from osprey.steps import AccumulatingStep, make_train_step


def build_model(cfg):
    inp = keras.Input((cfg.seq_len,), dtype="int32")
    h = keras.layers.Embedding(cfg.vocab, cfg.dim)(inp)
    for _ in range(cfg.depth):
        h = keras.layers.GRU(cfg.dim, return_sequences=True)(h) + h
    return keras.Model(inp, keras.layers.Dense(cfg.vocab)(keras.layers.LayerNormalization()(h)))


def main():
    cfg = config.load()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train = window_dataset(cfg.shards, cfg.seq_len, cfg.micro_batch, hvd.rank(), hvd.size())
    val = window_dataset([cfg.val_shard], cfg.seq_len, cfg.micro_batch, hvd.rank(), hvd.size(),
                         training=False).repeat()

    model = build_model(cfg)
    lr = WarmupCosine(cfg.lr * hvd.size(), cfg.warmup, cfg.total_steps)
    opt = keras.optimizers.Adam(learning_rate=lr)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    if cfg.accum_steps > 1:
        step_fn = AccumulatingStep(model, opt, loss_fn, cfg.accum_steps)
    else:
        single = make_train_step(model, opt, loss_fn)
        step_fn = lambda batches: single(*batches[0])  # noqa: E731

    ckpt = Checkpointer(cfg.ckpt_dir, model=model, optimizer=opt)
    step = ckpt.restore()

    @tf.function
    def val_loss(x, y):
        return loss_fn(y, model(x, training=False))

    it = iter(train)
    val_it = iter(val)
    first = True
    while step < cfg.total_steps:
        loss = step_fn(list(itertools.islice(it, cfg.accum_steps)))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
            first = False
        step += 1
        if step % cfg.log_every == 0 and hvd.rank() == 0:
            print(f"step {step} loss {float(loss):.4f}", flush=True)
        if step % cfg.eval_every == 0:
            local = sum(float(val_loss(*next(val_it))) for _ in range(cfg.val_steps)) / cfg.val_steps
            avg = float(hvd.allreduce(tf.constant(local), name="val_loss"))
            if hvd.rank() == 0:
                print(f"step {step} val_loss {avg:.4f} ppl {math.exp(avg):.2f}", flush=True)
        if step % cfg.ckpt_every == 0:
            ckpt.save(step)


if __name__ == "__main__":
    main()

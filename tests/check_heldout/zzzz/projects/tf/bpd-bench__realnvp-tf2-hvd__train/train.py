"""RealNVP (checkerboard couplings) bits/dim benchmark.

Either   horovodrun -np 4 python train.py
or       python train.py --num-proc 4        (spawns workers through horovod.run)
or, from the sweep pipeline:   from train import train_fn; train_fn(cfg)
"""
import math
import time


def train_fn(cfg):
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd
    from flowbench.data import splits
    from flowbench.flow import RealNVP, to_bpd
    from flowbench.utils import Mean, save

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_ds, te_ds = splits(cfg.data, cfg.batch_size, hvd.rank(), hvd.size())
    model = RealNVP(cfg.couplings, cfg.hidden)
    # Adam: sqrt scaling works better than linear for us
    scale = math.sqrt(hvd.size()) if cfg.sqrt_lr_scaling else hvd.size()
    opt = keras.optimizers.Adam(cfg.lr * scale)
    dims = 32 * 32 * 3

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 100.0)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(tr_ds)
    train_step(next(it))
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)

    m, t0 = Mean(), time.time()
    for step in range(1, cfg.steps + 1):
        m.update(train_step(next(it)))
        if step % cfg.eval_every == 0:
            tr_bpd = to_bpd(m.result(), dims)
            te = Mean()
            for x in te_ds:
                te.update(model(x))
            te_bpd = to_bpd(te.result(), dims)
            if hvd.rank() == 0:
                print("step %d  train %.3f bpd  test %.3f bpd  %.1fs" % (step, tr_bpd, te_bpd, time.time() - t0))
            save(model, cfg.workdir, step, {"train_bpd": tr_bpd, "test_bpd": te_bpd})
            m, t0 = Mean(), time.time()
    return hvd.rank()


def main(argv=None):
    from flowbench.options import build
    from flowbench.launch import run_distributed
    cfg = build(argv)
    return run_distributed(train_fn, cfg)


if __name__ == "__main__":
    main()

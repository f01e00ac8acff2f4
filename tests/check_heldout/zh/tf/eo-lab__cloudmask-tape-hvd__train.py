import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from cloudnet.distributed import global_average, init_workers, sync_initial_state
from cloudnet.hparams import HParams
from cloudnet.network import cloud_net
from cloudnet.pipeline import make_pipeline


def main():
    ap = argparse.ArgumentParser(description='Sentinel-2 cloud mask, horovod tape loop')
    ap.add_argument('--hparams', default=None)
    ap.add_argument('--epochs', type=int)
    ap.add_argument('--batch_size', type=int)
    args = ap.parse_args()
    hp = HParams.from_json(args.hparams, epochs=args.epochs, batch_size=args.batch_size)

    is_chief = init_workers()
    use_mp = hp.mixed_precision and bool(tf.config.list_physical_devices('GPU'))
    if use_mp:
        keras.mixed_precision.set_global_policy('mixed_float16')

    train_ds = make_pipeline(hp.train_glob, hp, hvd.rank(), hvd.size(), training=True)
    val_ds = make_pipeline(hp.val_glob, hp, hvd.rank(), hvd.size(), training=False)

    model = cloud_net(hp.bands)
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=hp.lr * hvd.size(), decay_steps=hp.epochs * hp.steps_per_epoch,
        warmup_target=None)
    optimizer = keras.optimizers.AdamW(schedule, weight_decay=1e-4, use_ema=True,
                                       ema_momentum=hp.ema_decay)
    if use_mp:
        optimizer = keras.mixed_precision.LossScaleOptimizer(optimizer)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    model(tf.zeros((1, hp.tile, hp.tile, hp.bands)))
    optimizer.build(model.trainable_variables)
    sync_initial_state(model, optimizer)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, hp.model_dir, max_to_keep=2)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
            scaled = optimizer.scale_loss(loss) if use_mp else loss
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def eval_step(x, y):
        logits = model(x, training=False)
        pred = tf.argmax(logits, -1, output_type=tf.int32)
        return loss_fn(y, logits), tf.reduce_mean(tf.cast(pred == y, tf.float32))

    train_it, val_it = iter(train_ds), iter(val_ds)
    for epoch in range(hp.epochs):
        running = tf.keras.metrics.Mean()
        for _ in range(hp.steps_per_epoch):
            running.update_state(train_step(*next(train_it)))
        vloss, vacc = tf.keras.metrics.Mean(), tf.keras.metrics.Mean()
        for _ in range(hp.val_steps):
            l, a = eval_step(*next(val_it))
            vloss.update_state(l)
            vacc.update_state(a)
        stats = global_average({'train_loss': running.result(), 'val_loss': vloss.result(),
                                'val_acc': vacc.result()})
        if is_chief:
            print(f'epoch {epoch + 1}/{hp.epochs} ' + ' '.join(f'{k}={v:.4f}' for k, v in stats.items()))
            manager.save(checkpoint_number=epoch + 1)

    if is_chief:
        os.makedirs(hp.model_dir, exist_ok=True)
        model.save(os.path.join(hp.model_dir, 'cloudnet_final.keras'))


if __name__ == '__main__':
    main()

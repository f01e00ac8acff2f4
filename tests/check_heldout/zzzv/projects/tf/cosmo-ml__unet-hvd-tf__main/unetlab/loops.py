import os

import keras
import tensorflow as tf
import horovod.tensorflow as hvd
import horovod.tensorflow.keras as hvdk

from .losses import DiceScore, bce


def run_custom(F, model, train_ds, val_ds):
    opt = keras.optimizers.Adam(F.lr * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
    prefix = os.path.join(F.ckpt_dir, "ckpt")
    train_dice, val_dice = DiceScore(), DiceScore(name="val_dice")

    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = bce(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        train_dice.update_state(y, logits)
        return loss

    first = True
    for epoch in range(F.epochs):
        train_dice.reset_state()
        val_dice.reset_state()
        losses = []
        for x, y in train_ds:
            losses.append(step(x, y, first))
            first = False
        for x, y in val_ds:
            val_dice.update_state(y, model(x, training=False))
        # dice from global counts, not a mean of per-worker dice
        counts = tf.stack([tf.convert_to_tensor(val_dice.inter), tf.convert_to_tensor(val_dice.denom)])
        counts = hvd.allreduce(counts, op=hvd.Sum, name="val_counts")
        vdice = float(counts[0] * 2.0 / tf.maximum(counts[1], 1.0))
        tloss = float(hvd.allreduce(tf.reduce_mean(losses), name="train_loss"))
        if hvd.rank() == 0:
            print("epoch %d loss %.4f val_dice %.4f" % (epoch, tloss, vdice))
            ckpt.epoch.assign(epoch)
            if (epoch + 1) % F.save_every == 0 or epoch + 1 == F.epochs:
                ckpt.save(prefix)


def run_fit(F, model, train_ds, val_ds, steps_per_epoch):
    opt = hvdk.DistributedOptimizer(keras.optimizers.Adam(F.lr * hvdk.size()))
    model.compile(optimizer=opt, loss=bce, metrics=[DiceScore()])
    cbs = [hvdk.callbacks.BroadcastGlobalVariablesCallback(0), hvdk.callbacks.MetricAverageCallback()]
    if hvdk.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(F.ckpt_dir, "unet-{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
    model.fit(train_ds, epochs=F.epochs, steps_per_epoch=steps_per_epoch, validation_data=val_ds,
              callbacks=cbs, verbose=2 if hvdk.rank() == 0 else 0)

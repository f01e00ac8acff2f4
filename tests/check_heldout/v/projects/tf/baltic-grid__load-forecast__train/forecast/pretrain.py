"""Stage 1: self-supervised pre-training of the TCN encoder (reconstruct the masked last day)."""
import keras
import tensorflow as tf


def pretrain_encoder(encoder, dataset, cfg, log_every=100, verbose=False):
    decoder = keras.layers.Dense(24)
    opt = keras.optimizers.Adam(cfg.pretrain_lr)

    @tf.function
    def step(x):
        masked = tf.concat([x[:, :-24], tf.zeros_like(x[:, -24:])], axis=1)
        with tf.GradientTape() as tape:
            recon = decoder(encoder(masked, training=True))
            loss = tf.reduce_mean(tf.square(recon - x[:, -24:, 0]))
        variables = encoder.trainable_variables + decoder.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    for i, (x, _) in enumerate(dataset.take(cfg.pretrain_steps)):
        loss = step(x)
        if verbose and i % log_every == 0:
            print(f"pretrain step {i} recon_mse {float(loss):.4f}")
    return encoder

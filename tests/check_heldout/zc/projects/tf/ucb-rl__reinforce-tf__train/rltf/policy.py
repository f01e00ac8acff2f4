import keras
import tensorflow as tf


def build_policy(obs_dim=4, n_actions=2, hidden=64):
    return keras.Sequential([
        keras.Input((obs_dim,)),
        keras.layers.Dense(hidden, activation="tanh"),
        keras.layers.Dense(hidden, activation="tanh"),
        keras.layers.Dense(n_actions),
    ])


def sample_action(policy, obs, rng):
    logits = policy(obs[None], training=False)[0].numpy()
    p = tf.nn.softmax(logits).numpy()
    return int(rng.choice(len(p), p=p))

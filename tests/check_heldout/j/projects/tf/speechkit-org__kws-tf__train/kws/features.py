import os

import tensorflow as tf

from kws import LABELS

SAMPLE_RATE = 16000


def _log_mel(wave):
    stft = tf.signal.stft(wave, frame_length=480, frame_step=160, fft_length=512)
    mel_w = tf.signal.linear_to_mel_weight_matrix(40, 257, SAMPLE_RATE, 20.0, 7600.0)
    mel = tf.tensordot(tf.abs(stft) ** 2, mel_w, 1)
    return tf.math.log(mel + 1e-6)[..., None]


def _decode(path, label):
    audio, _ = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1, desired_samples=SAMPLE_RATE)
    return _log_mel(tf.squeeze(audio, -1)), label


def _split_list(root, list_name):
    with open(os.path.join(root, list_name)) as f:
        rel = sorted(line.strip() for line in f if line.strip())
    labels = [LABELS.index(r.split("/")[0]) if r.split("/")[0] in LABELS else 1 for r in rel]
    return [os.path.join(root, r) for r in rel], labels


def make_split(root, list_name, batch_size, num_shards, index, training):
    paths, labels = _split_list(root, list_name)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(len(paths) // num_shards + 1, reshuffle_each_iteration=True)
    ds = ds.map(_decode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE), len(paths)

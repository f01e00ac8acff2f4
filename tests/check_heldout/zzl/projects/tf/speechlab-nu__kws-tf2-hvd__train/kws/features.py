import numpy as np
import tensorflow as tf


def log_mel(wave, sr=16000, n_mels=40):
    stft = tf.signal.stft(wave, frame_length=480, frame_step=160, fft_length=512)
    mel_w = tf.signal.linear_to_mel_weight_matrix(n_mels, 257, sr, 20.0, 4000.0)
    mel = tf.tensordot(tf.abs(stft), mel_w, 1)
    return tf.math.log(mel + 1e-6)[..., None]


def make_dataset(npz_path, global_batch, ctx, training):
    data = np.load(npz_path)
    waves, labels = data["waves"].astype(np.float32), data["labels"].astype(np.int64)
    if training:
        # whole global batches only, so that every worker runs the same number of steps
        keep = len(waves) - len(waves) % global_batch
        waves, labels = waves[:keep], labels[:keep]
    ds = tf.data.Dataset.from_tensor_slices((waves, labels))
    ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    if training:
        ds = ds.shuffle(len(waves) // ctx.num_input_pipelines + 1)
    ds = ds.map(lambda w, y: (log_mel(w), y), num_parallel_calls=tf.data.AUTOTUNE)
    per_replica = ctx.get_per_replica_batch_size(global_batch)
    return ds.batch(per_replica, drop_remainder=training).prefetch(tf.data.AUTOTUNE)

import tensorflow as tf


def log_mel(audio, sample_rate=16000, n_mels=40, frame=480, step=160):
    stft = tf.signal.stft(audio, frame_length=frame, frame_step=step, fft_length=512)
    mag = tf.abs(stft)
    mel = tf.signal.linear_to_mel_weight_matrix(n_mels, mag.shape[-1], sample_rate, 20.0, 7600.0)
    return tf.math.log(tf.tensordot(mag, mel, 1) + 1e-6)

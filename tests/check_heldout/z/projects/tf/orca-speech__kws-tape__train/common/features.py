import tensorflow as tf

SAMPLE_RATE = 16000
FRAME_LEN = 480      # 30 ms
FRAME_STEP = 160     # 10 ms
N_MELS = 40


def log_mel(audio):
    """Batch of 1 s clips (B x 16000, float32 in [-1, 1]) -> B x 98 x 40 x 1 log-mel features."""
    stft = tf.signal.stft(audio, FRAME_LEN, FRAME_STEP, fft_length=512)
    power = tf.abs(stft) ** 2
    mel_w = tf.signal.linear_to_mel_weight_matrix(N_MELS, 257, SAMPLE_RATE, 20.0, 7600.0)
    mel = tf.tensordot(power, mel_w, 1)
    return tf.math.log(mel + 1e-6)[..., tf.newaxis]


def spec_augment(feats, max_time=10, max_freq=5):
    t = tf.shape(feats)[1]
    t0 = tf.random.uniform([], 0, t - max_time, dtype=tf.int32)
    mask = tf.concat([tf.ones([t0]), tf.zeros([max_time]), tf.ones([t - t0 - max_time])], 0)
    return feats * mask[tf.newaxis, :, tf.newaxis, tf.newaxis]

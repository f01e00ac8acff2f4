import keras
import tensorflow as tf


@keras.saving.register_keras_serializable(package="musicnn")
class LogMelSpectrogram(keras.layers.Layer):
    """Waveform (batch, samples) -> log-mel (batch, frames, n_mels, 1), computed inside the graph."""

    def __init__(self, sample_rate=16000, n_fft=512, hop=256, n_mels=96, **kwargs):
        super().__init__(**kwargs)
        self.sample_rate, self.n_fft, self.hop, self.n_mels = sample_rate, n_fft, hop, n_mels
        self.mel_matrix = tf.signal.linear_to_mel_weight_matrix(
            num_mel_bins=n_mels, num_spectrogram_bins=n_fft // 2 + 1, sample_rate=sample_rate,
            lower_edge_hertz=0.0, upper_edge_hertz=sample_rate / 2)

    def call(self, wav):
        stft = tf.signal.stft(wav, frame_length=self.n_fft, frame_step=self.hop, fft_length=self.n_fft)
        mel = tf.tensordot(tf.abs(stft) ** 2, self.mel_matrix, 1)
        return tf.expand_dims(tf.math.log(mel + 1e-6), -1)

    def get_config(self):
        return dict(super().get_config(), sample_rate=self.sample_rate, n_fft=self.n_fft, hop=self.hop,
                    n_mels=self.n_mels)

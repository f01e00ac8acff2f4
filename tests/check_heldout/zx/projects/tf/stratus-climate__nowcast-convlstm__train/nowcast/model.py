import tensorflow as tf
from tensorflow.keras import layers


class ConvLSTMNowcaster(tf.keras.Model):
    def __init__(self, filters=32, out_frames=6):
        super().__init__()
        self.enc1 = layers.ConvLSTM2D(filters, 3, padding="same", return_sequences=True)
        self.enc2 = layers.ConvLSTM2D(filters, 3, padding="same", return_sequences=False)
        self.out_frames = out_frames
        self.head = layers.Conv2D(out_frames, 1, activation="sigmoid")

    def call(self, frames, training=False):
        h = self.enc2(self.enc1(frames, training=training), training=training)
        y = self.head(h)                                  # [B, H, W, T_out]
        return tf.transpose(y, [0, 3, 1, 2])[..., None]   # [B, T_out, H, W, 1]

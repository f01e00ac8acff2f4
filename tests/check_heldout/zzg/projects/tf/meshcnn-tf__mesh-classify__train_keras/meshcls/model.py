import keras
import tensorflow as tf


class FaceNeighbourConv(keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.dense = keras.layers.Dense(units)
        self.bn = keras.layers.BatchNormalization()

    def call(self, feats, adj, mask, training=False):
        nb = tf.gather(feats, adj, batch_dims=1)                      # (B, F, 3, C)
        x = tf.concat([feats, tf.reduce_sum(nb, 2), tf.reduce_max(nb, 2)], axis=-1)
        return tf.nn.relu(self.bn(self.dense(x), training=training)) * mask[..., None]


def build_model(cfg):
    feats = keras.Input((cfg["max_faces"], cfg["face_feats"]), name="feats")
    adj = keras.Input((cfg["max_faces"], 3), dtype="int32", name="adj")
    mask = keras.Input((cfg["max_faces"],), name="mask")
    h = feats
    for ch in cfg["conv_channels"]:
        h = FaceNeighbourConv(ch)(h, adj, mask)
    pooled = keras.layers.GlobalMaxPooling1D()(h)
    out = keras.layers.Dense(cfg["num_classes"])(keras.layers.Dropout(0.3)(pooled))
    return keras.Model({"feats": feats, "adj": adj, "mask": mask}, out)

import keras
from keras import layers


def neumf(num_users, num_items, mf_dim=16, mlp_layers=(64, 32, 16), reg=1e-6):
    user = keras.Input((), dtype="int32", name="user")
    item = keras.Input((), dtype="int32", name="item")
    r = keras.regularizers.l2(reg)
    mf_u = layers.Embedding(num_users, mf_dim, embeddings_regularizer=r)(user)
    mf_i = layers.Embedding(num_items, mf_dim, embeddings_regularizer=r)(item)
    mlp_u = layers.Embedding(num_users, mlp_layers[0] // 2, embeddings_regularizer=r)(user)
    mlp_i = layers.Embedding(num_items, mlp_layers[0] // 2, embeddings_regularizer=r)(item)
    mf = layers.Multiply()([mf_u, mf_i])
    mlp = layers.Concatenate()([mlp_u, mlp_i])
    for units in mlp_layers[1:]:
        mlp = layers.Dense(units, activation="relu", kernel_regularizer=r)(mlp)
    out = layers.Dense(1, activation="sigmoid")(layers.Concatenate()([mf, mlp]))
    return keras.Model({"user": user, "item": item}, out, name="neumf")

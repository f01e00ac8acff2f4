import keras
from keras import layers


def build_cnn(img_size=150):
    return keras.Sequential([
        keras.Input((img_size, img_size, 3)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(128, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(256, activation="relu"),
        layers.Dropout(0.5),
        layers.Dense(1, activation="sigmoid"),
    ])


def print_rank0(rank, *msg):
    if rank == 0:
        print(*msg, flush=True)

_base_ = "base"

config = dict(
    model=dict(depth=20),
    optimizer=dict(learning_rate=0.05),
    train=dict(epochs=120),
)

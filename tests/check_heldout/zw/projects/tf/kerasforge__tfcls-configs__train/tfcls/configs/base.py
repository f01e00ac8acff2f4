config = dict(
    data=dict(name="cifar10", batch_size=128, shuffle_buffer=10000, augment=True),
    model=dict(type="ResNetV1", depth=20, width=16),
    optimizer=dict(type="SGD", learning_rate=0.1, momentum=0.9, nesterov=True),
    train=dict(epochs=160, warmup_epochs=5, checkpoint_every=10),
)

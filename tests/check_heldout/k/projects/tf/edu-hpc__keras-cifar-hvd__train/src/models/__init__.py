from .resnet import resnet_cifar  # noqa: F401

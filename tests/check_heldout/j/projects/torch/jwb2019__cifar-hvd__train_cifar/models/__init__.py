from .resnet import resnet20, resnet56

ARCHS = {"resnet20": resnet20, "resnet56": resnet56}

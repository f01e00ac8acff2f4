from .resnet import resnet20, resnet32, resnet56

ARCHS = {"resnet20": resnet20, "resnet32": resnet32, "resnet56": resnet56}

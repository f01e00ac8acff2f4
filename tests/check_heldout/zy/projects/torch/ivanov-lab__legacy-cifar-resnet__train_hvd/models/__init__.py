from .resnet import resnet20

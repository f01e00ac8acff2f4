from .pointnet import PointNet

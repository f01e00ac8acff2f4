from .model import PointNetCls
from .dataset import ModelNet40

"""PSMNet-lite: a small stereo matching network for KITTI / SceneFlow."""
__version__ = "0.3.1"

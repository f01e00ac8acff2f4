import argparse


def get_options():
    p = argparse.ArgumentParser("HRNet-W18-small semantic segmentation (Mapillary Vistas / Cityscapes)")
    p.add_argument("--dataset", default="cityscapes", choices=["cityscapes", "vistas"])
    p.add_argument("--records", default="/data/tfrecords/cityscapes")
    p.add_argument("--pretrained", default="pretrained/hrnet_w18_small_imagenet.weights.h5",
                   help="ImageNet weights for the stem/stages ('' to train from scratch)")
    p.add_argument("--crop", type=int, nargs=2, default=[512, 1024])
    p.add_argument("--batch-size", type=int, default=2, help="per replica")
    p.add_argument("--epochs", type=int, default=484)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--eval-freq", type=int, default=10)
    p.add_argument("--ckpt-dir", default="ckpt/hrnet_w18s")
    p.add_argument("--synthetic", action="store_true")
    return p.parse_args()


NUM_CLASSES = {"cityscapes": 19, "vistas": 65}

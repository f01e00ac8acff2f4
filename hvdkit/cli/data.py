"""`hvdkit data`: provide data sets locally, from files already on this machine (nothing is downloaded).

    hvdkit data keras-mnist            # Fashion-MNIST as Keras's cache file ~/.keras/datasets/mnist.npz
    hvdkit data keras-mnist --out DIR/mnist-0.npz --force
    hvdkit data torch-mnist            # torchvision's files: ./data/MNIST/raw/ (stand-in), ./data/FashionMNIST/raw/
    hvdkit data torch-mnist --root /scratch/me/data

keras-mnist writes the four uint8 arrays (x_train 60000x28x28, y_train, x_test 10000x28x28, y_test) from
Debian's dataset-fashion-mnist into $KERAS_HOME/datasets/mnist.npz (~/.keras/datasets/ without
KERAS_HOME). It is Fashion-MNIST standing in for MNIST, not MNIST. An existing file that is not an
earlier stand-in (real MNIST, say) is left alone unless --force.

Keras 3's keras.datasets.mnist.load_data() checks the file's sha256 against the real MNIST's: it rejects
the stand-in, tries to download MNIST and, with no internet, deletes the stand-in and fails. An unmodified
script reads the stand-in when launched with hvdkit's directory hvdkit/data/keras_standin first on
PYTHONPATH (the command prints it): its sitecustomize lets Keras accept a file marked as the stand-in,
and checks every other file's hash as before. Otherwise copy the real mnist.npz from a machine with internet.

torch-mnist writes the four IDX files, uncompressed, under ROOT/MNIST/raw/ and ROOT/FashionMNIST/raw/
(ROOT: --root, else $HVDKIT_DATA, else ./data as Horovod's and PyTorch's MNIST examples use), the names
torchvision's datasets.MNIST and FashionMNIST check: `MNIST(ROOT, download=True)` then finds them and
downloads nothing; no hook is needed. MNIST/raw/ holds Fashion-MNIST standing in for MNIST (the file
hvdkit-standin.txt beside them says so); FashionMNIST/raw/ the real Fashion-MNIST. A relative root in a
script is relative to the directory its ranks start in. Files there that are not an earlier stand-in are
left alone unless --force. Staging is idempotent and atomic: ranks may all run it on a shared root.
"""
import argparse


def run_keras_mnist(args):
    from hvdkit.data.datasets import write_keras_mnist
    from hvdkit.data.keras_standin import DIR
    write_keras_mnist(args.out, force=args.force)  # a DataError is the one-line error main() prints
    print("keras.datasets.mnist.load_data() checks the real MNIST's sha256: it rejects this file and, offline, "
          "deletes it, unless the script runs with hvdkit's hook first on PYTHONPATH, e.g.\n"
          f"  PYTHONPATH={DIR}${{PYTHONPATH:+:$PYTHONPATH}} mpirun -n 2 -x PYTHONPATH python train.py")
    return 0


def run_torch_mnist(args):
    from hvdkit.data import torchvision_layout
    root = torchvision_layout.resolve_root(args.root)
    torchvision_layout.stage(root, force=args.force)  # a DataError is the one-line error main() prints
    print(f"torchvision.datasets.MNIST({root!r}, download=True) now reads these and downloads nothing; a script "
          "whose root is relative (Horovod's examples: ./data) resolves it in the directory its ranks start in")
    return 0


def register(sub):
    p = sub.add_parser("data", help="provide data sets locally (Fashion-MNIST as Keras's or torchvision's MNIST files)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    q = actions.add_parser("keras-mnist", help="write Fashion-MNIST as Keras's cache file datasets/mnist.npz")
    q.add_argument("--out", help="file to write (default: $KERAS_HOME or ~/.keras, then datasets/mnist.npz)")
    q.add_argument("--force", action="store_true", help="replace an existing file that is not an earlier stand-in")
    q.set_defaults(run=run_keras_mnist)
    t = actions.add_parser("torch-mnist", help="stage Fashion-MNIST as torchvision's MNIST/raw and FashionMNIST/raw")
    t.add_argument("--root", help="the root scripts pass to datasets.MNIST (default: $HVDKIT_DATA, else ./data)")
    t.add_argument("--force", action="store_true", help="replace files there that are not an earlier stand-in")
    t.set_defaults(run=run_torch_mnist)

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_history(history, path):
    tr, va = zip(*history)
    plt.figure(figsize=(5, 3.5))
    plt.semilogy(tr, label="train")
    plt.semilogy(va, label="validation")
    plt.xlabel("epoch")
    plt.ylabel("MSE")
    plt.legend()
    plt.tight_layout()
    plt.savefig(path, dpi=100)

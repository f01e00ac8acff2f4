import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .ckpt import save_checkpoint


def _auc(y, p):
    o = np.argsort(p)
    r = np.empty_like(o, dtype=np.float64)
    r[o] = np.arange(1, len(p) + 1)
    npos = y.sum()
    nneg = len(y) - npos
    return float((r[y == 1].sum() - npos * (npos + 1) / 2) / max(npos * nneg, 1))


def fit(model, optimizer, train_loader, valid_loader, train_sampler, cfg, device, start_epoch=0):
    best_auc, bad = 0.0, 0
    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for xn, xc, y in train_loader:
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xn.to(device), xc.to(device)), y.to(device))
            loss.backward()
            optimizer.step()

        model.eval()
        ps, ys = [], []
        with torch.no_grad():
            for xn, xc, y in valid_loader:
                ps.append(torch.sigmoid(model(xn.to(device), xc.to(device))).cpu())
                ys.append(y)
        p = hvd.allgather(torch.cat(ps), name="p").numpy()
        yy = hvd.allgather(torch.cat(ys), name="y").numpy()
        auc = _auc(yy, p)
        if hvd.rank() == 0:
            print(f"epoch {epoch} valid_auc={auc:.4f}", flush=True)
        save_checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                        cfg.out_dir)
        if auc > best_auc:
            best_auc, bad = auc, 0
            save_checkpoint({"model": model.state_dict(), "epoch": epoch, "auc": auc}, cfg.out_dir, "best.pt")
        else:
            bad += 1
            if bad >= cfg.early_stop:
                break
    return best_auc

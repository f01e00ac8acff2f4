import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

from models import InformerLite
from exp.data_factory import data_provider
from exp.tools import EarlyStopping, adjust_learning_rate, metric


class Exp_Main:
    def __init__(self, args, device):
        self.args = args
        self.device = device
        self.model = InformerLite(args.enc_in, args.seq_len, args.pred_len, args.d_model,
                                  args.n_heads, args.e_layers, args.dropout).to(device)
        self.base_lr = args.learning_rate * hvd.size()
        opt = torch.optim.Adam(self.model.parameters(), lr=self.base_lr)
        self.optim = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optim, root_rank=0)
        self.criterion = nn.MSELoss()

    def _get_data(self, flag):
        return data_provider(self.args, flag, hvd.rank(), hvd.size())

    def vali(self, loader):
        self.model.eval()
        losses = []
        with torch.no_grad():
            for x, y in loader:
                pred = self.model(x.to(self.device))
                losses.append(self.criterion(pred, y.to(self.device)).item())
        self.model.train()
        return float(np.average(losses))

    def train(self, setting):
        _, train_loader, train_sampler = self._get_data("train")
        _, vali_loader, _ = self._get_data("val")
        _, test_loader, _ = self._get_data("test")
        path = f"{self.args.checkpoints}/{setting}"
        early = EarlyStopping(patience=self.args.patience, verbose=True, is_root=hvd.rank() == 0)
        for epoch in range(self.args.train_epochs):
            train_sampler.set_epoch(epoch)
            t0, losses = time.time(), []
            self.model.train()
            for i, (x, y) in enumerate(train_loader):
                self.optim.zero_grad()
                loss = self.criterion(self.model(x.to(self.device)), y.to(self.device))
                loss.backward()
                self.optim.step()
                losses.append(loss.item())
            vali_loss = self.vali(vali_loader)
            test_loss = self.vali(test_loader)
            if hvd.rank() == 0:
                print(f"Epoch {epoch + 1} | {time.time() - t0:.1f}s | train {np.average(losses):.5f} "
                      f"vali {vali_loss:.5f} test {test_loss:.5f}")
            early(vali_loss, self.model, path)
            if early.early_stop:
                if hvd.rank() == 0:
                    print("Early stopping")
                break
            adjust_learning_rate(self.optim, epoch + 1, self.base_lr)
        return self.model

    def test(self, setting):
        _, test_loader, _ = self._get_data("test")
        self.model.eval()
        preds, trues = [], []
        with torch.no_grad():
            for x, y in test_loader:
                preds.append(self.model(x.to(self.device)).cpu().numpy())
                trues.append(y.numpy())
        mae, mse, smape = metric(np.concatenate(preds), np.concatenate(trues))
        if hvd.rank() == 0:
            print(f"{setting} mse:{mse:.5f} mae:{mae:.5f} smape:{smape:.2f}")
        return mae, mse, smape

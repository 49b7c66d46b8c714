"""D2L 9.1 (Working with Sequences): the book's synthetic sine series
x_t = sin(0.01 t) + N(0, 0.2), t = 1..1000, predicted from the previous tau = 4 values by a
small MLP trained on the first 600 windows with MSE and Adam (book: lr 0.01, 5 epochs,
batch 16). Reports the one-step-ahead test loss on the remaining windows and the error of
k-step-ahead predictions, and plots the train / test loss per epoch.

    python examples/python/d2l/sequence.py --mode graph
"""
import common as d2l
import tandem
from tandem import mint
from tandem.mint import nn


def get_net():
    net = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 1))
    net.apply(init_weights)
    return net


def init_weights(m):
    if type(m) is nn.Linear:
        nn.init.xavier_uniform_(m.weight)


def main():
    args = d2l.parser(__doc__, epochs=5, lr=0.01, batch_size=16).parse_args()
    d2l.setup(args)
    T, tau = 1000, 4
    time = mint.arange(1, T + 1, dtype=tandem.float32)
    x = mint.sin(0.01 * time) + mint.normal(0, 0.2, (T,))
    features = mint.zeros((T - tau, tau))
    for i in range(tau):
        features[:, i] = x[i: T - tau + i]
    labels = x[tau:].reshape((-1, 1))
    n_train = args.limit or 600
    train_iter = d2l.load_array((features[:n_train], labels[:n_train]), args.batch_size)
    loss = nn.MSELoss()
    net = get_net()

    def test_loss():
        with tandem.no_grad():
            net.eval()
            return {"test loss": float(loss(net(features[n_train:]), labels[n_train:]))}

    run = d2l.train_regression(net, train_iter, args.epochs, args.lr, args.mode, "adam",
                               args=args, name="sequence_mlp", loss=loss, eval_fn=test_loss)
    # k-step-ahead prediction from the first n_train + tau observations
    with tandem.no_grad():
        net.eval()
        multistep = mint.zeros(T)
        multistep[: n_train + tau] = x[: n_train + tau]
        for i in range(n_train + tau, T):
            multistep[i] = net(multistep[i - tau:i].reshape((1, -1))).reshape(())
        multi_err = float(((multistep[n_train + tau:] - x[n_train + tau:]) ** 2).mean())
    print(f"one-step test loss {run.history['test loss'][-1]:.4f}, "
          f"multi-step MSE from t={n_train + tau}: {multi_err:.4f} (grows: errors compound)")
    run.finish(multistep_mse=multi_err)


if __name__ == "__main__":
    main()

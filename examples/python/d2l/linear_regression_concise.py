"""D2L 3.5 (Concise Implementation of Linear Regression): the same synthetic data,
nn.Linear(2, 1), nn.MSELoss and mint.optim.SGD (book: lr 0.03, 3 epochs, batch 10).

    python examples/python/d2l/linear_regression_concise.py --mode graph
"""
import common as d2l
import tandem
from tandem import mint
from tandem.mint import nn


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = mint.normal(0, 1, (num_examples, len(w)))
    y = mint.matmul(X, w) + b
    y += mint.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def main():
    args = d2l.parser(__doc__, epochs=3, lr=0.03, batch_size=10).parse_args()
    d2l.setup(args)
    true_w, true_b = mint.tensor([2, -3.4]), 4.2
    features, labels = synthetic_data(true_w, true_b, args.limit or 1000)
    data_iter = d2l.load_array((features, labels), args.batch_size)

    net = nn.Sequential(nn.Linear(2, 1))
    net[0].weight.data.normal_(0, 0.01)
    net[0].bias.data.fill_(0)
    loss = nn.MSELoss()

    def full_loss():
        with tandem.no_grad():
            return {"test loss": float(loss(net(features), labels))}

    run = d2l.train_regression(net, data_iter, args.epochs, args.lr, args.mode, "sgd",
                               args=args, name="linear_regression_concise", loss=loss,
                               eval_fn=full_loss)
    w = net[0].weight.detach()
    b = net[0].bias.detach()
    w_err = [float(v) for v in (true_w - w.reshape(true_w.shape))]
    b_err = true_b - float(b)
    print("error in estimating w:", w_err)
    print("error in estimating b:", b_err)
    run.finish(w_error=max(abs(v) for v in w_err), b_error=abs(b_err))


if __name__ == "__main__":
    main()

"""D2L 3.4 (Linear Regression Implementation from Scratch): synthetic data
y = X w + b + noise with w = [2, -3.4], b = 4.2; parameters are plain tensors with
requires_grad, the model, the squared loss and minibatch SGD are written by hand (book:
lr 0.03, 3 epochs, batch 10).

PyNative mode is the book's loop (l.sum().backward(), then sgd() under no_grad); graph mode
compiles one step with @jit: value_and_grad over the same loss, then the same in-place
sgd() update, which the compiled graph writes back into w and b.

    python examples/python/d2l/linear_regression_scratch.py --mode graph
"""
import time

import common as d2l
import tandem
from tandem import jit, mint


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = mint.normal(0, 1, (num_examples, len(w)))
    y = mint.matmul(X, w) + b
    y += mint.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def linreg(X, w, b):
    """The linear regression model."""
    return mint.matmul(X, w) + b


def squared_loss(y_hat, y):
    """Squared loss."""
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, grads, lr, batch_size):
    """Minibatch stochastic gradient descent (in place, as in the book)."""
    with tandem.no_grad():
        for param, grad in zip(params, grads):
            param -= lr * grad / batch_size


def main():
    args = d2l.parser(__doc__, epochs=3, lr=0.03, batch_size=10).parse_args()
    d2l.setup(args)
    true_w, true_b = mint.tensor([2, -3.4]), 4.2
    features, labels = synthetic_data(true_w, true_b, args.limit or 1000)
    w = mint.normal(0, 0.01, size=(2, 1)).requires_grad_(True)
    b = mint.zeros(1, requires_grad=True)
    lr, batch_size = args.lr, args.batch_size
    data_iter = d2l.load_array((features, labels), batch_size)

    if args.mode == "pynative":
        def train_step(X, y):
            l = squared_loss(linreg(X, w, b), y)  # minibatch loss in X and y
            l.sum().backward()                      # gradient of l with respect to [w, b]
            sgd([w, b], [w.grad, b.grad], lr, X.shape[0])
            w.grad.zero_()
            b.grad.zero_()
            return l.sum() / X.shape[0]
    else:
        tandem.set_context(mode=tandem.GRAPH_MODE)
        grad_fn = tandem.value_and_grad(lambda X, y: squared_loss(linreg(X, w, b), y).sum(),
                                        None, [w, b])

        @jit
        def train_step(X, y):
            l, grads = grad_fn(X, y)
            sgd([w, b], grads, lr, X.shape[0])
            return l / X.shape[0]

    run = d2l.Run("linear_regression_scratch", args.mode, args, ("train loss",))
    for epoch in range(args.epochs):
        bar = d2l.ProgressBar(epoch + 1, args.epochs, len(data_iter), not args.no_progress)
        t0, c0, total, n = time.perf_counter(), time.process_time(), 0.0, 0
        for i, (X, y) in enumerate(data_iter):
            total += float(train_step(X, y)) * y.shape[0]
            n += y.shape[0]
            bar.update(i + 1, total / n, None, n)
        run.epoch_times.append(time.perf_counter() - t0)
        run.cpu_times.append(time.process_time() - c0)
        with tandem.no_grad():
            train_l = float(squared_loss(linreg(features, w, b), labels).mean())
        run.history["train loss"].append(train_l)
        bar.close(f"epoch {epoch + 1}, loss {train_l:f}, {run.epoch_times[-1]:.2f} s")
    tandem.set_context(mode=tandem.PYNATIVE_MODE)
    w_err = [float(v) for v in (true_w - w.reshape(true_w.shape)).detach()]
    b_err = true_b - float(b.detach())
    print(f"error in estimating w: {w_err}")
    print(f"error in estimating b: {b_err}")
    run.finish(w_error=max(abs(v) for v in w_err), b_error=abs(b_err))


if __name__ == "__main__":
    main()

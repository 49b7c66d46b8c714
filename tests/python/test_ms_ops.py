"""tandem.ops follows mindspore.ops where MindSpore and PyTorch differ under one name
(signatures from MindSpore 2.x's API reference; numpy as the oracle for values)."""
import numpy as np
import pytest

import tandem
from tandem import mint, ops

T = tandem


def arr(t):
    return t.asnumpy()


def test_ones_zeros_take_shape_then_dtype():
    assert ops.ones((2, 3), T.int32).shape == (2, 3) and ops.ones((2, 3), T.int32).dtype == T.int32
    assert ops.ones(5, T.float32).shape == (5,)
    assert ops.zeros([4]).dtype == T.float32  # MindSpore's default dtype
    assert ops.ones(T.Tensor([2, 2])).shape == (2, 2)  # a shape Tensor
    np.testing.assert_array_equal(arr(ops.zeros((2,), T.int64)), [0, 0])
    with pytest.raises(TypeError, match="ops.ones: shape"):
        ops.ones(2.5)
    # mint keeps PyTorch's varargs form
    assert mint.ones(2, 3).shape == (2, 3)


def test_fill_uniform_normal():
    t = ops.fill(T.int32, (2, 2), 7)
    assert t.dtype == T.int32 and arr(t).tolist() == [[7, 7], [7, 7]]
    u = ops.uniform((1000,), T.Tensor(2.0), T.Tensor(3.0))
    assert u.dtype == T.float32 and 2.0 <= arr(u).min() and arr(u).max() < 3.0
    with pytest.raises(ValueError, match="minval must be < maxval"):
        ops.uniform((2,), 1.0, 1.0)
    n = ops.normal((20000,), 1.0, 2.0)
    assert abs(arr(n).mean() - 1.0) < 0.1 and abs(arr(n).std() - 2.0) < 0.1


def test_select_is_where():
    c = T.Tensor([True, False, True])
    np.testing.assert_array_equal(arr(ops.select(c, T.Tensor([1, 2, 3]), T.Tensor([7, 8, 9]))),
                                  [1, 8, 3])
    x = T.Tensor(np.arange(6).reshape(2, 3))
    assert mint.select(x, 1, 0).tolist() == [0, 3]  # PyTorch's select on the mint face


def test_transpose_is_a_permutation():
    a = np.random.rand(2, 3, 4).astype(np.float32)
    np.testing.assert_array_equal(arr(ops.transpose(T.Tensor(a), (2, 0, 1))), a.transpose(2, 0, 1))
    with pytest.raises(ValueError, match="one entry per dim"):
        ops.transpose(T.Tensor(a), (1, 0))
    with pytest.raises(TypeError, match="permutation"):
        ops.transpose(T.Tensor(a), 0)
    assert mint.transpose(T.Tensor(a), 0, 1).shape == (3, 2, 4)


def test_gather_takes_slices_and_gather_elements_is_torch_gather():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[0, 2], [1, 1]])
    np.testing.assert_array_equal(arr(ops.gather(T.Tensor(a), T.Tensor(idx), 1)),
                                  np.take(a, idx, axis=1))
    np.testing.assert_array_equal(arr(ops.gather(T.Tensor(a), T.Tensor([2, 0]), 0)), a[[2, 0]])
    with pytest.raises(ValueError, match="batch_dims"):
        ops.gather(T.Tensor(a), T.Tensor([0]), 0, batch_dims=1)
    with pytest.raises(TypeError, match="integer"):
        ops.gather(T.Tensor(a), T.Tensor([0.5]), 0)
    ix = np.array([[0, 1], [3, 2], [1, 1]])
    np.testing.assert_array_equal(arr(ops.gather_elements(T.Tensor(a), 1, T.Tensor(ix))),
                                  np.take_along_axis(a, ix, 1))


def test_flatten_keeps_the_batch_dim():
    x = T.Tensor(np.zeros((2, 3, 4)))
    assert ops.flatten(x).shape == (2, 12)
    assert ops.flatten(x, start_dim=0).shape == (24,)
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(arr(ops.flatten(T.Tensor(a), "F", start_dim=0)),
                                  a.flatten("F"))
    assert mint.flatten(x).shape == (24,)


def test_expand_dims_cast_shape_rank_size():
    x = T.Tensor(np.zeros((2, 3), np.float32))
    assert ops.expand_dims(x, 1).shape == (2, 1, 3)
    assert ops.cast(x, T.int32).dtype == T.int32
    assert ops.shape(x) == (2, 3) and ops.rank(x) == 2 and ops.size(x) == 6


def test_std_var_default_to_population_statistics():
    a = np.random.rand(5, 4).astype(np.float32)
    np.testing.assert_allclose(arr(ops.std(T.Tensor(a))), a.std(), rtol=1e-5)
    np.testing.assert_allclose(arr(ops.var(T.Tensor(a), 0, ddof=1)), a.var(0, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(arr(ops.var(T.Tensor(a), 1, True, keepdims=True)),
                               a.var(1, ddof=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(arr(mint.std(T.Tensor(a))), a.std(ddof=1), rtol=1e-5)


def test_mean_keep_dims_and_softmax_axis():
    a = np.random.rand(3, 4).astype(np.float32)
    np.testing.assert_allclose(arr(ops.mean(T.Tensor(a), 1, keep_dims=True)),
                               a.mean(1, keepdims=True), rtol=1e-6)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(arr(ops.softmax(T.Tensor(a))), e / e.sum(-1, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(arr(ops.log_softmax(T.Tensor(a), 0)),
                               a - np.log(np.exp(a).sum(0)), rtol=1e-5, atol=1e-6)


def test_one_hot_with_values_and_axis():
    idx = T.Tensor([0, 2])
    np.testing.assert_array_equal(arr(ops.one_hot(idx, 3, T.Tensor(1.0), T.Tensor(0.0))),
                                  np.eye(3, dtype=np.float32)[[0, 2]])
    out = ops.one_hot(idx, 3, 5, -1, axis=0)
    np.testing.assert_array_equal(arr(out), np.where(np.eye(3)[[0, 2]].T > 0, 5, -1))


def test_losses_in_mindspore_argument_order():
    z = np.array([[0.5, -1.0, 2.0]], np.float32)
    y = np.array([[0.0, 1.0, 1.0]], np.float32)
    w = np.array([[1.0, 2.0, 0.5]], np.float32)
    pw = np.array([2.0, 1.0, 3.0], np.float32)
    sig = 1 / (1 + np.exp(-z))
    ref = -(w * (pw * y * np.log(sig) + (1 - y) * np.log(1 - sig))).mean()
    got = ops.binary_cross_entropy_with_logits(T.Tensor(z), T.Tensor(y), T.Tensor(w), T.Tensor(pw))
    np.testing.assert_allclose(arr(got), ref, rtol=1e-5)
    x, t = np.random.rand(4, 3).astype(np.float32), np.random.rand(4, 3).astype(np.float32)
    np.testing.assert_allclose(arr(ops.mse_loss(T.Tensor(x), T.Tensor(t))), ((x - t) ** 2).mean(),
                               rtol=1e-5)
    np.testing.assert_allclose(arr(ops.l1_loss(T.Tensor(x), T.Tensor(t), "sum")),
                               np.abs(x - t).sum(), rtol=1e-5)
    assert ops.smooth_l1_loss(T.Tensor(x), T.Tensor(t)).shape == (4, 3)  # 'none' by default
    logits, labels = T.Tensor(x), T.Tensor([0, 2, 1, 0])
    ls = x - np.log(np.exp(x).sum(1, keepdims=True))
    np.testing.assert_allclose(arr(ops.cross_entropy(logits, labels)),
                               -ls[np.arange(4), [0, 2, 1, 0]].mean(), rtol=1e-5)
    np.testing.assert_allclose(arr(ops.nll_loss(T.Tensor(ls), labels)),
                               -ls[np.arange(4), [0, 2, 1, 0]].mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="label_smoothing"):
        ops.nll_loss(T.Tensor(ls), labels, label_smoothing=0.1)


def test_dense_dropout_clip_depend_assign():
    x = np.random.rand(2, 3).astype(np.float32)
    w = np.random.rand(4, 3).astype(np.float32)
    b = np.random.rand(4).astype(np.float32)
    np.testing.assert_allclose(arr(ops.dense(T.Tensor(x), T.Tensor(w), T.Tensor(b))),
                               x @ w.T + b, rtol=1e-5)
    assert arr(ops.dropout(T.Tensor(x), 0.5, training=False)).tolist() == x.tolist()
    kept = arr(ops.dropout(T.ones(10000), 0.25))
    np.testing.assert_allclose(np.unique(kept), [0.0, 4 / 3], rtol=1e-6)
    clipped = ops.clip_by_value([T.Tensor([-2.0, 0.5]), T.Tensor([3.0])], -1.0, 1.0)
    assert [arr(c).tolist() for c in clipped] == [[-1.0, 0.5], [1.0]]
    v = T.Tensor([1.0])
    assert ops.depend(v, T.Tensor([2.0])) is v
    p = T.Parameter(T.Tensor([1.0, 2.0]), name="p")
    assert ops.assign(p, T.Tensor([5.0, 6.0])) is p and arr(p).tolist() == [5.0, 6.0]


def test_primitive_classes():
    a = np.random.rand(2, 3).astype(np.float32)
    x = T.Tensor(a)
    np.testing.assert_allclose(arr(ops.Add()(x, x)), a + a)
    np.testing.assert_allclose(arr(ops.ReduceMean(keep_dims=True)(x, 1)), a.mean(1, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_allclose(arr(ops.ReduceSum()(x)), a.sum(), rtol=1e-6)
    np.testing.assert_allclose(arr(ops.ReduceMax(keep_dims=False)(x, 0)), a.max(0))
    np.testing.assert_allclose(arr(ops.Softmax(axis=0)(x)).sum(0), [1, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(arr(ops.MatMul(transpose_b=True)(x, x)), a @ a.T, rtol=1e-5)
    np.testing.assert_allclose(arr(ops.HSwish()(x)), a * np.clip(a + 3, 0, 6) / 6, rtol=1e-6)
    assert ops.Argmax(axis=1)(x).dtype == T.int32
    assert ops.Concat(1)((x, x)).shape == (2, 6) and ops.Squeeze()(ops.ExpandDims()(x, 0)).shape == (2, 3)
    w = T.Parameter(T.Tensor([2.0]), name="w")

    def f(v):
        return (v * w * v).sum()

    np.testing.assert_allclose(arr(ops.GradOperation()(f)(T.Tensor([3.0]))), [12.0])
    (gw,) = ops.GradOperation(get_by_list=True)(f, [w])(T.Tensor([3.0]))
    np.testing.assert_allclose(arr(gw), [9.0])
    np.testing.assert_allclose(
        arr(ops.GradOperation(sens_param=True)(lambda v: v * v)(T.Tensor([3.0]), T.Tensor([2.0]))),
        [12.0])
    with pytest.raises(ValueError, match="weights"):
        ops.GradOperation(get_by_list=True)(f)


def test_conv_pad_modes_against_torch():
    import torch
    x = np.random.rand(2, 3, 9, 9).astype(np.float32)
    w = np.random.rand(4, 3, 3, 3).astype(np.float32)
    tx, tw = torch.tensor(x), torch.tensor(w)
    np.testing.assert_allclose(arr(ops.conv2d(T.Tensor(x), T.Tensor(w))),  # 'valid' default
                               torch.nn.functional.conv2d(tx, tw).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        arr(ops.conv2d(T.Tensor(x), T.Tensor(w), pad_mode="pad", padding=(1, 1, 2, 0))),
        torch.nn.functional.conv2d(torch.nn.functional.pad(tx, (2, 0, 1, 1)), tw).numpy(),
        rtol=1e-4, atol=1e-5)
    assert ops.conv2d(T.Tensor(x), T.Tensor(w), stride=2, pad_mode="same").shape == (2, 4, 5, 5)
    with pytest.raises(ValueError, match="pad_mode"):
        ops.conv2d(T.Tensor(x), T.Tensor(w), pad_mode="full")
    with pytest.raises(ValueError, match="padding must be 0"):
        ops.conv2d(T.Tensor(x), T.Tensor(w), padding=1)
    x1, w1 = np.random.rand(2, 3, 10).astype(np.float32), np.random.rand(5, 3, 3).astype(np.float32)
    assert ops.conv1d(T.Tensor(x1), T.Tensor(w1), pad_mode="same").shape == (2, 5, 10)


def test_pool_defaults_and_activation_slopes():
    x = np.random.rand(1, 2, 4, 4).astype(np.float32)
    assert ops.avg_pool2d(T.Tensor(x), 2).shape == (1, 2, 3, 3)  # MindSpore's stride 1
    assert mint.nn.functional.avg_pool2d(T.Tensor(x), 2).shape == (1, 2, 2, 2)
    np.testing.assert_allclose(arr(ops.avg_pool2d(T.Tensor(x))), x)  # kernel 1
    v, i = ops.max_pool2d(T.Tensor(x), 2, None, 0, 1, True)  # return_indices 6th
    np.testing.assert_allclose(arr(v), x.reshape(1, 2, 2, 2, 2, 2).max((3, 5)))
    assert arr(ops.leaky_relu(T.Tensor([-1.0, 2.0]))).tolist() == pytest.approx([-0.2, 2.0])
    p = np.array([0.2, 0.9], np.float32)
    t = np.array([0.0, 1.0], np.float32)
    np.testing.assert_allclose(arr(ops.binary_cross_entropy(T.Tensor(p), T.Tensor(t))),
                               -(t * np.log(p) + (1 - t) * np.log(1 - p)).mean(), rtol=1e-5)
    lp = np.log(np.array([[0.3, 0.7]], np.float32))
    q = np.array([[0.5, 0.5]], np.float32)
    np.testing.assert_allclose(arr(ops.kl_div(T.Tensor(lp), T.Tensor(q), "sum")),
                               (q * (np.log(q) - lp)).sum(), rtol=1e-5)
    assert ops.adaptive_avg_pool2d(T.Tensor(x), 1).shape == (1, 2, 1, 1)
    assert ops.layer_norm(T.Tensor(x), (4,)).shape == x.shape


def test_shape_ops_take_axis():
    a = np.arange(24).reshape(2, 3, 4)
    x = T.Tensor(a)
    assert ops.squeeze(T.Tensor(np.zeros((1, 3, 1))), axis=2).shape == (1, 3)
    assert [p.shape for p in ops.split(x, 2, axis=2)] == [(2, 3, 2), (2, 3, 2)]
    assert [p.shape for p in ops.split(x, [1, 2], axis=1)] == [(2, 1, 4), (2, 2, 4)]
    assert [p.shape for p in ops.chunk(x, 2, axis=2)] == [(2, 3, 2)] * 2
    parts = ops.unstack(x, axis=1)
    assert len(parts) == 3 and parts[1].asnumpy().tolist() == a[:, 1].tolist()
    np.testing.assert_array_equal(arr(ops.repeat_interleave(T.Tensor([1, 2]), 2, axis=0)),
                                  [1, 1, 2, 2])


def test_max_min_return_values_and_indices():
    a = np.array([[0.0, 0.4, 0.9], [0.7, 0.1, 0.2]], np.float32)
    v, i = ops.max(T.Tensor(a))
    assert float(v) == pytest.approx(0.9) and int(i) == 2
    v, i = ops.min(T.Tensor(a), axis=1, keepdims=True)
    np.testing.assert_allclose(arr(v), a.min(1, keepdims=True))
    assert arr(i).tolist() == [[0], [1]]
    v, _ = ops.max(T.Tensor(a), axis=0, initial=0.8)
    np.testing.assert_allclose(arr(v), [0.8, 0.8, 0.9])
    v, _ = ops.max(T.Tensor(a), axis=1, initial=-1.0, where=T.Tensor(a < 0.8))
    np.testing.assert_allclose(arr(v), [0.4, 0.7])
    with pytest.raises(ValueError, match="initial"):
        ops.max(T.Tensor(a), where=T.Tensor(a > 0))
    assert isinstance(mint.max(T.Tensor(a)), T.Tensor)  # PyTorch's: one value

"""A first look at tandem in eager (PyNative) mode: every line runs as Python reaches it,
so each intermediate can be printed."""
import tandem
from tandem import mint


def compute(x, y):
    z = x + y  # runs now: z is a real tensor
    w = z * 2
    return w


x = mint.Tensor([1])
y = mint.Tensor([2])
print("compute(x, y) =", compute(x, y))

tandem.manual_seed(0)
a = mint.randn(3, 4)
print("a =", a)
print("a.sum(dim=1) =", a.sum(dim=1))
print("softmax-like row normalisation:", mint.exp(a) / mint.exp(a).sum(dim=1, keepdim=True))
print("a[a > 0] =", a[a > 0])
x = mint.arange(6).reshape(2, 3)
print("x =", x, "\nx.T =", x.T, "\nx + x + x =", x + x + x)
print("allocator:", tandem.memory_stats())

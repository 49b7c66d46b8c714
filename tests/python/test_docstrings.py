"""Every public callable of the faces is documented and annotated: a summary line, an Args
section naming every parameter, a Returns section when it returns something, and
annotations that inspect.signature shows. Classes document their constructor in the class
docstring; their public methods are checked like functions."""
import importlib
import inspect
import re

import pytest

import tandem

FACES = [
    "tandem", "tandem.mint", "tandem.mint.nn", "tandem.mint.nn.functional",
    "tandem.mint.nn.init", "tandem.mint.nn.utils", "tandem.mint.optim",
    "tandem.mint.optim.lr_scheduler", "tandem.linalg", "tandem.utils.data",
    "tandem.vision.transforms", "tandem.vision.datasets", "tandem.nn", "tandem.nn.utils",
    "tandem.ops", "tandem.dataset", "tandem.dataset.vision", "tandem.dataset.transforms",
    "tandem.dataset.config", "tandem.common.initializer", "tandem.serialization",
    "tandem.autograd", "tandem.context", "tandem.mint.distributed", "tandem.communication",
]
# Objects only the MindSpore faces export use MindSpore's "Default: ``x`` ." style, objects
# only the PyTorch faces export PyTorch's "Default: ``x``."; the rest (tandem itself,
# serialization, the op table's functions in tandem.ops) serve both.
MINDSPORE_FACES = {"tandem.nn", "tandem.dataset", "tandem.dataset.vision",
                   "tandem.dataset.transforms", "tandem.dataset.config",
                   "tandem.common.initializer", "tandem.communication"}
PYTORCH_FACES = {"tandem.mint", "tandem.mint.nn", "tandem.mint.nn.functional",
                 "tandem.mint.nn.init", "tandem.mint.nn.utils", "tandem.mint.optim",
                 "tandem.mint.optim.lr_scheduler", "tandem.utils.data",
                 "tandem.vision.transforms", "tandem.vision.datasets", "tandem.autograd",
                 "tandem.mint.distributed"}

# Names that cannot carry the sections or annotations here, and why.
EXEMPT: dict = {}
EXEMPT_OBJECTS = {id(getattr(tandem, n)) for n in EXEMPT}
# Parameters never documented: the receiver of a method.
RECEIVERS = {"self", "cls"}

_SECTION = re.compile(r"^(\s*)(Args|Arguments|Keyword [Aa]rgs):\s*$")
_ENTRY = re.compile(r"^\s*(\*{0,2}\w+)\s*(\(|:)")


def _module(name):
    """A face module by its public dotted name (``tandem.dataset.config`` is an alias)."""
    parent, _, leaf = name.rpartition(".")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return getattr(_module(parent), leaf)


def _public_names(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    return list(names)


def _documented_args(doc):
    """The parameter names listed in the docstring's Args / Keyword args sections, in order."""
    names, indent, entry = [], None, None
    for line in doc.splitlines():
        m = _SECTION.match(line)
        if m:
            indent, entry = len(m.group(1)), None
            continue
        if indent is None or not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            indent = None
            continue
        entry = depth if entry is None else entry
        e = _ENTRY.match(line)
        if e and depth == entry:  # deeper lines continue an entry's description
            names.append(e.group(1).lstrip("*"))
    return names


def _has_section(doc, *heads):
    return any(re.search(rf"^\s*{h}:\s*$", doc, re.M) for h in heads)


def _returns_value(sig):
    r = sig.return_annotation
    return r is not inspect.Signature.empty and r not in (None, "None")


def _check_callable(label, fn, doc, skip_first, problems, own_varargs=True, need_return=True):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        problems.append(f"{label}: no signature ({e})")
        return
    if not doc or not doc.strip():
        problems.append(f"{label}: no docstring")
        return
    params = list(sig.parameters.values())
    if skip_first and params and params[0].name in RECEIVERS:
        params = params[1:]
    documented = _documented_args(doc)
    for p in params:
        var = p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        if p.annotation is p.empty:
            problems.append(f"{label}: parameter {p.name!r} has no annotation")
        if var and not own_varargs:
            continue
        if p.name not in documented:
            problems.append(f"{label}: parameter {p.name!r} missing from Args")
    order = [n for n in documented if n in {p.name for p in params}]
    if order != [p.name for p in params if p.name in order]:
        problems.append(f"{label}: Args are not in the signature's order ({order})")
    if need_return and sig.return_annotation is inspect.Signature.empty:
        problems.append(f"{label}: no return annotation")
    if _returns_value(sig) and not _has_section(doc, "Returns", "Yields"):
        problems.append(f"{label}: returns {sig.return_annotation} but has no Returns section")


def _is_tandem_class(obj):
    return (inspect.isclass(obj) and obj.__module__.startswith("tandem")
            and obj is not tandem.Tensor and obj is not tandem.dtype)


def _method_objects(cls):
    """(name, plain function, its docstring as inherited) for the public methods that tandem's
    Python classes in cls's MRO define (the Tensor methods are the op table's)."""
    seen = set()
    for base in cls.__mro__:
        if base is object or not base.__module__.startswith("tandem") or \
                base is tandem.Tensor:
            continue
        for name, raw in vars(base).items():
            if name in seen or (name.startswith("_") and name != "__call__"):
                continue
            seen.add(name)
            if isinstance(raw, property):
                yield name, raw, inspect.getdoc(raw)
                continue
            fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            if inspect.isfunction(fn):
                yield name, raw, inspect.getdoc(getattr(cls, name))


def _style_problems(label, doc, faces):
    ms = faces <= MINDSPORE_FACES
    pt = faces <= PYTORCH_FACES
    out = []
    for m in re.finditer(r"Default: ``[^`]*``( ?)\.", doc):
        if ms and m.group(1) != " ":
            out.append(f"{label}: MindSpore-style default needs ``x`` . ({m.group(0)!r})")
        if pt and m.group(1) == " ":
            out.append(f"{label}: PyTorch-style default is ``x``. ({m.group(0)!r})")
    return out


def _exports():
    """id -> (label, object, faces exporting it)."""
    out = {}
    for modname in FACES:
        mod = _module(modname)
        for name in _public_names(mod):
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or id(obj) in EXEMPT_OBJECTS:
                continue
            if not (inspect.isfunction(obj) or _is_tandem_class(obj) or
                    (callable(obj) and not inspect.isclass(obj) and
                     type(obj).__module__ != "tandem._C")):
                continue
            label, _, faces = out.setdefault(id(obj), (f"{modname}.{name}", obj, set()))
            faces.add(modname)
    return out


EXPORTS = _exports()


def test_faces_export_many_callables():
    assert len(EXPORTS) > 500, len(EXPORTS)


def test_public_functions_are_documented_and_annotated():
    problems = []
    for label, obj, faces in EXPORTS.values():
        if inspect.isclass(obj):
            continue
        doc = inspect.getdoc(obj)
        _check_callable(label, obj, doc, False, problems)
        problems += _style_problems(label, doc or "", faces)
    assert not problems, "\n".join(problems)


def test_classes_document_their_constructor_and_methods():
    problems, done = [], set()
    for label, cls, faces in EXPORTS.values():
        if not inspect.isclass(cls):
            continue
        own = cls.__dict__.get("__doc__")
        if not own or not own.strip():
            problems.append(f"{label}: no class docstring")
            continue
        doc = inspect.getdoc(cls)
        own_init = "__init__" in vars(cls)
        params = [p for p in inspect.signature(cls).parameters.values()]
        if params and not (not own_init and all(
                p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)):
            _check_callable(label, cls.__init__, doc, True, problems, own_varargs=own_init,
                            need_return=False)
        problems += _style_problems(label, doc, faces)
        for name, raw, mdoc in _method_objects(cls):
            if id(raw) in done:
                continue
            done.add(id(raw))
            mlabel = f"{label}.{name}"
            if isinstance(raw, property):
                if not mdoc:
                    problems.append(f"{mlabel}: property without a docstring")
                continue
            fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            _check_callable(mlabel, fn, mdoc, not isinstance(raw, staticmethod), problems)
            if name in vars(cls):
                problems += _style_problems(mlabel, mdoc or "", faces)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", sorted(EXEMPT))
def test_exemptions_are_still_needed(name):
    """An exempt name that now passes the checks should leave the list."""
    obj = getattr(tandem, name)
    problems = []
    _check_callable(f"tandem.{name}", obj, inspect.getdoc(obj), False, problems)
    assert problems, f"tandem.{name} passes now: remove it from EXEMPT"

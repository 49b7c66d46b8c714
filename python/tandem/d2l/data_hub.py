"""The book's data hub, offline: ``download(name)`` finds the file locally and checks its
SHA-1; nothing is ever fetched from the network.

Where files are looked for, in order: every directory in ``$TANDEM_DATA`` (``os.pathsep``
separated; a ``d2l`` folder inside one is searched too), the ``cache_dir`` the caller passes
(the book's ``../data``), and the default data directory ``~/.tandem/data``. Archives are
extracted under ``$TANDEM_D2L_CACHE`` (default ``~/.cache/tandem/d2l``), since the data
directory may be read-only."""
from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

DATA_URL = "http://d2l-data.s3-accelerate.amazonaws.com/"
DATA_HUB: Dict[str, Tuple[str, Optional[str]]] = {}

# The data sets the book registers before using them (file name, SHA-1 as the book lists it).
DATA_HUB.update({
    "time_machine": (DATA_URL + "timemachine.txt", "090b5e7e70c295757f55df93cb0a180b9691891a"),
    "kaggle_house_train": (DATA_URL + "kaggle_house_pred_train.csv",
                           "585e9cc93e70b39160e7921475f9bcd7d31219ce"),
    "kaggle_house_test": (DATA_URL + "kaggle_house_pred_test.csv",
                          "fa19780a7b011d9b009e8bff8e99922a8ee2eb90"),
    "airfoil": (DATA_URL + "airfoil_self_noise.dat", "76e5be1548fd8222e5074cf0faae75edff8cf93f"),
    "fra-eng": (DATA_URL + "fra-eng.zip", "94646ad1522d915e7b0f9296181140edcf86a4f5"),
    # chapter 14 (natural language processing: pretraining)
    "ptb": (DATA_URL + "ptb.zip", "319d85e578af0cdc590547f26231e4e31cdf1e42"),
    "wikitext-2": ("https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-v1.zip",
                   "3c914d17d80b1459be871a5039ac23e752a53cbe"),
    "glove.6b.50d": (DATA_URL + "glove.6B.50d.zip", "0b8703943ccdb6eb788e6f091b8946e82231bc4d"),
    "glove.6b.100d": (DATA_URL + "glove.6B.100d.zip",
                      "cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a"),
    "glove.42b.300d": (DATA_URL + "glove.42B.300d.zip",
                       "b5116e234e9eb9076672cfeabf5469f3eec904fa"),
    "wiki.en": (DATA_URL + "wiki.en.zip", "c1816da3821ae9f43899be655002f6c723e91b88"),
})

# Computer vision (chapter 13) and NLP applications (chapter 15); the last two are published
# by their authors, not on the book's server, so their URLs carry their own file names.
DATA_HUB.update({
    "hotdog": (DATA_URL + "hotdog.zip", "fba480ffa8aa7e0febbb511d181409f899b9baa5"),
    "banana-detection": (DATA_URL + "banana-detection.zip",
                         "5de26c8fce5ccdea9f91267273464dc968d20d72"),
    "voc2012": (DATA_URL + "VOCtrainval_11-May-2012.tar",
                "4e443f8a2eca6b1dac8a6c57641b67dd40621a49"),
    "cifar10_tiny": (DATA_URL + "kaggle_cifar10_tiny.zip",
                     "2068874e4b9a9f0fb07ebe0ad2b29754449ccacd"),
    "dog_tiny": (DATA_URL + "kaggle_dog_tiny.zip", "0cb91d09b814ecdc07b50f31f8dcad3e81d6a86d"),
    "aclImdb": ("http://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
                "01ada507287d82875905620988597833ad4e0903"),
    "SNLI": ("https://nlp.stanford.edu/projects/snli/snli_1.0.zip",
             "9fcde07509c7e87ec61c640c1b2753d9041758e4"),
})

# Files whose local copy is another packing of the same data than the book's (README of the
# shared data folder): book SHA-1 -> SHA-1s accepted in its place.
EQUIVALENT_SHA1 = {
    "94646ad1522d915e7b0f9296181140edcf86a4f5": {"9caa3865cb9b7ce919778579bc56d70a3452438a"},
}

DEFAULT_DATA_DIR = os.path.join(os.path.expanduser("~"), ".tandem", "data")


def data_dirs(cache_dir: Optional[str] = None) -> List[str]:
    """The directories ``download`` searches, in order.

    Args:
        cache_dir (str, optional): the caller's cache directory, searched after $TANDEM_DATA.

    Returns:
        list[str]: existing directories.
    """
    dirs: List[str] = []
    for d in os.environ.get("TANDEM_DATA", "").split(os.pathsep):
        if d:
            dirs += [d, os.path.join(d, "d2l")]
    if cache_dir:
        dirs.append(cache_dir)
    dirs += [DEFAULT_DATA_DIR, os.path.join(DEFAULT_DATA_DIR, "d2l")]
    return [d for d in dirs if os.path.isdir(d)]


def extract_dir() -> str:
    """Where archives are unpacked: $TANDEM_D2L_CACHE or ~/.cache/tandem/d2l.

    Returns:
        str: the directory (created if missing).
    """
    d = os.environ.get("TANDEM_D2L_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "tandem", "d2l")
    os.makedirs(d, exist_ok=True)
    return d


def _sha1(path: str) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(name: str, cache_dir: str = os.path.join("..", "data")) -> str:
    """The local path of DATA_HUB's file ``name`` (no network: the file must be present).

    Args:
        name (str): a key of DATA_HUB.
        cache_dir (str): a directory searched after $TANDEM_DATA, as the book's cache.
            Default: ``'../data'``.

    Returns:
        str: the file's path.

    Raises:
        KeyError: ``name`` is not in DATA_HUB.
        FileNotFoundError: no searched directory holds the file.
        ValueError: the file found has another SHA-1 than DATA_HUB's.
    """
    if name not in DATA_HUB:
        raise KeyError(f"download: {name!r} is not in DATA_HUB (known: {sorted(DATA_HUB)})")
    url, sha1 = DATA_HUB[name]
    fname = url.rstrip("/").split("/")[-1]
    dirs = data_dirs(cache_dir)
    for d in dirs:
        path = os.path.join(d, fname)
        if os.path.isfile(path):
            if sha1:
                got = _sha1(path)
                if got != sha1 and got not in EQUIVALENT_SHA1.get(sha1, ()):
                    raise ValueError(f"download({name!r}): {path} has SHA-1 {got}, DATA_HUB "
                                     f"expects {sha1}; replace the file with the book's")
            return path
    raise FileNotFoundError(
        f"download({name!r}): {fname} not found in {dirs or 'any data directory'}; tandem "
        f"never downloads: put the file in a directory named by $TANDEM_DATA "
        f"(or {DEFAULT_DATA_DIR})")


def download_extract(name: str, folder: Optional[str] = None) -> str:
    """Extracts DATA_HUB's zip/tar archive ``name`` (found by ``download``) and returns the
    directory holding its contents.

    Args:
        name (str): a key of DATA_HUB naming a .zip, .tar or .gz archive.
        folder (str, optional): the sub-folder of the archive to return. Default: ``None``
            (the archive's name without extension).

    Returns:
        str: the extracted directory.
    """
    fname = download(name)
    base, ext = os.path.splitext(os.path.basename(fname))
    root = extract_dir()
    if ext == ".zip":
        opener = zipfile.ZipFile
    elif ext in (".tar", ".gz"):
        opener = tarfile.open
    else:
        raise ValueError(f"download_extract({name!r}): only zip/tar archives can be "
                         f"extracted, got {fname}")
    stamp = os.path.join(root, f".{base}{ext}.extracted")
    if not os.path.exists(stamp):
        with opener(fname, "r") as f:
            f.extractall(root)
        open(stamp, "w").close()
    return os.path.join(root, folder) if folder else os.path.join(root, base)


def download_all() -> List[str]:
    """Resolves every DATA_HUB entry present locally.

    Returns:
        list[str]: the paths found (missing entries are skipped).
    """
    found = []
    for name in DATA_HUB:
        try:
            found.append(download(name))
        except (FileNotFoundError, ValueError):
            pass
    return found

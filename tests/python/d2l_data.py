"""Where the D2L book's data sets are (../shared/data/d2l next to the checkout, or
$TANDEM_DATA): "" on machines without them, where the tests that read them skip."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("TANDEM_DATA") or next(
    (d for d in (os.path.join(os.path.dirname(ROOT), "shared", "data", "d2l"),
                 os.path.join(os.path.dirname(os.path.dirname(ROOT)), "shared", "data", "d2l"))
     if os.path.isdir(d)), "")

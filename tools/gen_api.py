#!/usr/bin/env python3
"""Regenerates python/tandem/_generated from the op table without importing tandem (so it
runs before a build). `tools/gen_api.py --check` exits 1 when the files are stale."""
import importlib.util
import pathlib
import sys

api = pathlib.Path(__file__).resolve().parent.parent / "python" / "tandem" / "_api"
spec = importlib.util.spec_from_file_location("_tandem_api", api / "__init__.py",
                                              submodule_search_locations=[str(api)])
pkg = importlib.util.module_from_spec(spec)
sys.modules["_tandem_api"] = pkg
spec.loader.exec_module(pkg)
gen = importlib.import_module("_tandem_api.gen")
sys.exit(gen.main())

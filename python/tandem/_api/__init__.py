"""The op table (``table_*.py``, rows of ``rows.Op``) and the generator that turns it into
the functions of every face, the Tensor methods and the type stubs (``gen``, ``stubs``).
Nothing here imports tandem._C, so the generator runs without a build."""

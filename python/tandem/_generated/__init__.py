"""Generated from the op table (tandem/_api): the functions of every face and the Tensor
methods. Regenerate with ``python -m tandem._api.gen``."""

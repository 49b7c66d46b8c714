"""tandem.vision: torchvision's names for tandem (transforms, datasets)."""
from . import datasets, ops, transforms

__all__ = ["datasets", "ops", "transforms"]

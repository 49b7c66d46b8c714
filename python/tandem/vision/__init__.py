"""tandem.vision: torchvision's names for tandem (transforms, datasets, models, ops, io)."""
from . import datasets, io, models, ops, transforms

__all__ = ["datasets", "io", "models", "ops", "transforms"]

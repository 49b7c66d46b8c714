"""tandem.vision: torchvision's names for tandem (transforms, datasets)."""
from . import datasets, models, ops, transforms

__all__ = ["datasets", "models", "ops", "transforms"]

"""tandem.vision: torchvision's names for tandem (transforms, datasets)."""
from . import datasets, transforms

__all__ = ["datasets", "transforms"]

"""tandem.vision.io: torchvision.io's image reading and writing (``io.image`` holds them too,
as in torchvision: ``torchvision.io.image.ImageReadMode`` ports by the same swap)."""
from . import image
from .image import (ImageReadMode, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
                    read_file, read_image, write_file, write_jpeg, write_png)

__all__ = ["image", "ImageReadMode", "read_file", "write_file", "decode_image", "decode_png",
           "decode_jpeg", "read_image", "encode_png", "encode_jpeg", "write_png", "write_jpeg"]

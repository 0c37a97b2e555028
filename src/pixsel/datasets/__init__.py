"""Loaders: ``.npz``, ``.mat``, CSV, image folders, pixsel's shared datasets and the bundled digits."""

from ._loaders import Dataset, data_dir, load, load_digits_pair, load_shared, shared_path

__all__ = ["Dataset", "data_dir", "load", "load_digits_pair", "load_shared", "shared_path"]

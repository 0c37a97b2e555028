"""Loaders: ``.npz``, ``.mat``, CSV, image folders, train/test pairs, pixsel's shared datasets and the bundled digits."""

from ._loaders import (
    Dataset,
    TrainTest,
    data_dir,
    load,
    load_digits_pair,
    load_shared,
    load_train_test,
    shared_path,
)
from ._stores import CHUNK_BYTES, open_hdf5, open_image_folder, open_store, open_zarr, write_zarr

__all__ = ["Dataset", "TrainTest", "data_dir", "load", "load_digits_pair", "load_shared", "load_train_test",
           "shared_path"]
__all__ += ["CHUNK_BYTES", "open_hdf5", "open_image_folder", "open_store", "open_zarr", "write_zarr"]  # stores (Dask)

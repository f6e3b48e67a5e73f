"""The studies layer: one module per chapter of the book (its experiment grids, tables and
claims against its paper), built only from the layers below."""

__all__: list[str] = []

"""Optional C extensions and their NumPy twins, the allocator policy and BLAS threading."""

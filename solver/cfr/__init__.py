"""Solving: the CFR kernels, walks of the public tree, the engine, the solve loop, checkpoint and strategy files."""

"""The Toolsmith Python sandbox worker, as a package (the entry is ../worker.py; see its docstring)."""

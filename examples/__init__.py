"""Worked examples of the guide (docs/extending.md): real code that a test declares beside the product's routes."""

"""``python -m x3dbake``: the x3dbake command."""

from ._cli import main

main()

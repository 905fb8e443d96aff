"""`python -m buildfixer` runs the command line."""

from buildfixer.cli import main

main()

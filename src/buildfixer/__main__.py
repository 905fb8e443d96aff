"""`python -m buildfixer` runs the command line."""

from buildfixer.cli.main import main

main()

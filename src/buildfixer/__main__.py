"""`python -m buildfixer` runs the command line."""

from buildfixer.cli.entry import main

main()

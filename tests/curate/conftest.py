import sys
from pathlib import Path

# The fixture-repository writers next to the tests are plain modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))

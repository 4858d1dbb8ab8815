"""Where the shared acceptance material lives: /work/shared beside the repository."""
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"

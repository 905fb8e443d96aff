"""Exports of what buildfixer recorded, in the formats trainers read (sft.py)."""

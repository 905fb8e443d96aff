"""Build systems, JDK discovery and switching, and the process runner."""

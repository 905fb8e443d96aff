"""The sandbox every build, test and shell command runs in, in one place.

Backends (bubblewrap, none), the long-lived session per project, the unprivileged identity,
limits (rlimits, cgroups, seccomp), the network namespaces and their egress proxy, and the
allow-list of environment variables.
"""

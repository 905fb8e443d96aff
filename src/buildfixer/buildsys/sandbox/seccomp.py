"""The system-call filter every sandboxed process runs under (a seccomp BPF program, built here).

What it refuses, and why: the kernel's key rings (`keyctl`, `add_key`, `request_key`: a process
keeps the session keyring of whoever started it, and may read its keys); new namespaces (`unshare`,
`setns`, namespace flags of `clone`; `clone3`, whose flags sit where a filter cannot read them,
answers ENOSYS so the C library falls back to `clone`), above all a new user namespace, where
the sandbox would hold every capability again; the mount API; `bpf`, `userfaultfd`,
`perf_event_open` and `io_uring` (large kernel attack surfaces no build needs); module and kexec
loading; file handles. Foreign system-call ABIs (32-bit calls on x86_64, x32) end the process:
a filter for one ABI says nothing about another's numbers.

Only x86_64 and aarch64 have tables; elsewhere `filter_program` returns None and the sandbox runs
without the filter (docs/SECURITY.md says so).
"""

from __future__ import annotations

import platform
import struct

_EPERM, _ENOSYS = 1, 38
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
# BPF opcodes: load word at absolute offset, jumps on constant, return constant.
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
# Offsets in struct seccomp_data: nr, arch, args[0] (its low 32 bits on little-endian machines).
_NR, _ARCH, _ARG0 = 0, 4, 16
# CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}.
_NAMESPACE_FLAGS = 0x7E020080

# System call -> its number on (x86_64, aarch64). All are refused (EPERM), but those in _ABSENT
# (ENOSYS: callers fall back) and clone/unshare (refused only with namespace flags).
_NUMBERS = {
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218), "setns": (308, 268),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "move_mount": (429, 429),
    "open_tree": (428, 428), "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432),
    "fspick": (433, 433), "mount_setattr": (442, 442), "bpf": (321, 280), "userfaultfd": (323, 282),
    "perf_event_open": (298, 241), "kexec_load": (246, 104), "kexec_file_load": (320, 294),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264), "clone3": (435, 435),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "clone": (56, 220), "unshare": (272, 97),
}  # fmt: skip
_ABSENT = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
_FLAGGED = ("clone", "unshare")
# Machine -> (audit arch, first number of another ABI sharing the arch or None, column in _NUMBERS).
_ARCHES = {"x86_64": (0xC000003E, 0x40000000, 0), "aarch64": (0xC00000B7, None, 1)}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def filter_program(machine: str | None = None) -> bytes | None:
    """The filter as the kernel takes it (struct sock_filter array); None on an unknown machine."""
    numbers = _numbers(machine)
    if numbers is None:
        return None
    arch, other_abi, _ = _ARCHES[machine or platform.machine()]
    prog = [_op(_LD_ABS, _ARCH), _op(_JEQ, arch, 1, 0), _op(_RET, _RET_KILL_PROCESS), _op(_LD_ABS, _NR)]
    if other_abi is not None:
        prog += [_op(_JGE, other_abi, 0, 1), _op(_RET, _RET_KILL_PROCESS)]
    for name in (n for n in _NUMBERS if n not in _FLAGGED):
        errno = _ENOSYS if name in _ABSENT else _EPERM
        prog += [_op(_JEQ, numbers[name], 0, 1), _op(_RET, _RET_ERRNO | errno)]
    # clone and unshare: refused only when they ask for a new namespace.
    prog += [
        _op(_JEQ, numbers["clone"], 1, 0),
        _op(_JEQ, numbers["unshare"], 0, 3),
        _op(_LD_ABS, _ARG0),
        _op(_JSET, _NAMESPACE_FLAGS, 0, 1),
        _op(_RET, _RET_ERRNO | _EPERM),
        _op(_RET, _RET_ALLOW),
    ]
    return b"".join(prog)


def syscall_number(name: str, machine: str | None = None) -> int | None:
    """The number of a system call this module knows (`keyctl`, ...) on this machine; None elsewhere."""
    numbers = _numbers(machine)
    return numbers.get(name) if numbers else None


def _numbers(machine: str | None) -> dict[str, int] | None:
    arch = _ARCHES.get(machine or platform.machine())
    return {name: pair[arch[2]] for name, pair in _NUMBERS.items()} if arch else None

"""Where build steps and the agent's shell run: the sandbox backends behind `core.protocols.Sandbox`.

`bubblewrap` holds against a root caller. Its filesystem is built from an allow-list (`/usr`,
`/opt`, a filtered `/etc`, the toolchains, the caches, the project), not the host made read-only,
so Unix sockets, key files and other host state are simply absent; `/proc/sys` and the kernel's
other knobs are read-only; it has its own /tmp (a tmpfs of bounded size), HOME, PID, IPC and UTS
namespaces, and nothing it starts outlives it. Its code never runs as root on the host: started
by root, bubblewrap sets the sandbox up without a user namespace and its first process then
becomes an unused uid (`buildsys.sandbox.identity`); started by anyone else, a user namespace maps the
sandbox to the caller, without capabilities. In both cases that first process (`_LAUNCHER`) sets
the rlimits of `buildsys.sandbox.limits`, no new privileges, and the system-call filter of
`buildsys.sandbox.seccomp` (no key rings, no new namespaces) before it runs the command; the sandbox's
control group (`sandbox.cgroups`) is joined by the session that starts it (`sandbox.session`).
Without network it joins a network namespace with loopback only, which makes an offline build
provably offline. `none` runs the step as it is: the explicit opt-out (`--no-sandbox`). A new
backend (a container engine) is one class here and one entry in `SANDBOXES`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import executable
from buildfixer.buildsys.sandbox import cgroups, egress, netns
from buildfixer.buildsys.sandbox.identity import check_sandbox_settings, sandbox_ids
from buildfixer.buildsys.sandbox.limits import sandbox_limits
from buildfixer.buildsys.sandbox.seccomp import filter_program, syscall_number
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Confinement, Sandbox

# Dependency caches the builds of a trust domain share (`BuildOptions.shared_cache`): the only
# part of buildfixer's cache directory a build may write, with the sandbox's part of its state.
SHARED_CACHES = ("gradle", "m2", "npm", "pip", "corepack", "yarn", "pnpm-store")
# Inside the shared Gradle home, files Gradle runs in every later build: a build must not plant them.
_GRADLE_HOOKS = ("init.d", "init.gradle", "init.gradle.kts", "gradle.properties")
# Git refuses a repository another user owns ("dubious ownership"): inside, every folder is the
# sandbox's own trust domain, and a workspace's git directory (read-only, buildfixer's) is root's.
SANDBOX_GIT_ENV = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
# The host's system folders a sandbox sees, read-only; merged-/usr links are recreated as links.
_SYSTEM = ("/usr", "/opt")
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc builds read: tool configuration, certificates, the loader, names, zones. Not the
# accounts' secrets, the host's name and identity, ssh, sudo, git credentials or service config.
_ETC = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "ssl", "pki", "java", "java-*",
    "maven", "gradle", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
    "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "gai.conf", "protocols", "services",
    "networks", "mime.types", "magic", "magic.mime", "os-release", "debian_version", "lsb-release",
    "fonts", "python3", "python3.*", "perl", "pip.conf", "npmrc", "terminfo", "inputrc",
    "bash.bashrc", "profile", "locale.alias", "xml", "sgml", "mtab", "shells",
)  # fmt: skip
# Under /proc: kernel settings and triggers stay read-only even where the uid could write them,
# and what tells about other users' keys, timers and kernel memory reads as empty.
_PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
_PROC_EMPTY = ("keys", "key-users", "kcore", "timer_list", "sched_debug", "latency_stats")
# The sandbox's first process: limits, its own uid, no new privileges, the system-call filter,
# then the command (in `cwd` when given). Runs with `python -I -S`: nothing from the project
# or the environment changes how it starts.
_LAUNCHER = r"""
import ctypes, json, os, resource, sys
spec = json.loads(sys.argv[1])
for name, value in spec["rlimits"].items():
    kind = getattr(resource, name)
    hard = resource.getrlimit(kind)[1]
    soft, most = value, value + (5 if name == "RLIMIT_CPU" else 0)  # SIGXCPU first, SIGKILL after
    if hard != resource.RLIM_INFINITY:
        soft, most = min(soft, hard), min(most, hard)
    resource.setrlimit(kind, (soft, most))
libc = ctypes.CDLL(None, use_errno=True)
if spec["ids"]:
    uid, gid = spec["ids"]
    for cap in range(64):  # an empty bounding set: no exec can ever give a capability back
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
os.makedirs(spec["home"], mode=0o700, exist_ok=True)
if spec["keyctl"]:  # a new, empty session keyring: the caller's keys are no longer held
    libc.syscall(spec["keyctl"], 1, None)  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
    sys.exit("[buildfixer] the sandbox cannot set no_new_privs")
if spec["seccomp"]:
    program = ctypes.create_string_buffer(bytes.fromhex(spec["seccomp"]))
    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    prog = Prog(len(program.raw) // 8, ctypes.addressof(program))
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        sys.exit("[buildfixer] the sandbox cannot install its system-call filter")
if spec["cwd"]:
    os.chdir(spec["cwd"])
argv = sys.argv[2:]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    sys.stderr.write("[buildfixer] cannot run %s: %s\n" % (argv[0], exc.strerror))
    sys.exit(127)
"""


class NoSandbox:
    """Runs the step as it is, on the host (the `--no-sandbox` opt-out)."""

    name = "none"

    def wrap(self, argv: Sequence[str], confinement: Confinement, cwd: Path | None = None) -> list[str]:
        """The command line unchanged."""
        return list(argv)


class Bubblewrap:
    """The allow-listed filesystem, never the host's root, limits and a system-call filter."""

    name = "bubblewrap"

    def wrap(self, argv: Sequence[str], confinement: Confinement, cwd: Path | None = None) -> list[str]:
        """The command line that runs argv in the sandbox (in `cwd` when given)."""
        return bwrap_prefix(confinement) + launcher(confinement, cwd) + list(argv)


SANDBOXES: dict[str, Sandbox] = {backend.name: backend for backend in (NoSandbox(), Bubblewrap())}


def get_sandbox(name: str) -> Sandbox:
    """The backend registered as `name`, checked to work here; BuildfixerError otherwise."""
    try:
        backend = SANDBOXES[name]
    except KeyError:
        raise BuildfixerError(f"unknown sandbox {name!r} (known: {', '.join(SANDBOXES)})") from None
    if name == "bubblewrap" and (problem := bubblewrap_problem()):
        raise BuildfixerError(f"builds run sandboxed, but {problem}; or pass --no-sandbox to run unconfined")
    return backend


@cache
def bubblewrap_problem() -> str | None:
    """Why bubblewrap cannot confine a command on this machine; None when it can (checked once)."""
    bwrap = executable("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    check_sandbox_settings()
    python = tuple(p for p in (Path(sys.prefix), Path(sys.base_prefix)) if not _is_system(p))
    confinement = Confinement(writable=(), network=False, readable=python)  # the launcher is Python
    probe = [*bwrap_prefix(confinement), *launcher(confinement, None), "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot create its namespaces here ({reason[-1] if reason else done.returncode})"
    return None


def confinement_for(
    project: Path, options: BuildOptions, hidden: Sequence[Path] = (), git_metadata: bool = True
) -> Confinement:
    """What a build of `project` (or a command in its workspace) may reach.

    Writable: the project, the sandbox's part of its state and the shared dependency caches.
    Readable: the system folders and a filtered /etc (`bwrap_prefix`), plus the Python
    installation, the JDKs and the build tools wherever they live, Gradle distributions already
    unpacked under the caller's home, and with `git_metadata` the workspace's git directory in
    buildfixer's cache (builds run `git describe`). Frozen: the Gradle home's init scripts and
    properties. Hidden: `hidden`, inside what is otherwise visible.
    """
    cache_dir = options.cache_dir
    caches = (options.shared_cache(name) for name in SHARED_CACHES)
    writable = (project, options.sandbox_state_for(project), *caches)
    readable = [Path(sys.prefix), Path(sys.base_prefix), *(Path(jdk.path) for jdk in discover_jdks())]
    readable.append(Path.home() / ".gradle" / "wrapper" / "dists")  # Gradle distributions already here
    readable.append(cache_dir / "dated-index")  # pages of the dated pip index (served by buildfixer)
    readable += _tool_locations()
    if git_metadata:
        readable += _workspace_git_dirs(project, cache_dir)
    return Confinement(
        writable=writable,
        network=not options.offline,
        allowed_hosts=egress.allowed_hosts(),
        hidden=tuple(sorted(set(hidden))),
        readable=tuple(dict.fromkeys(p for p in readable if not _is_system(p))),
        frozen=tuple(options.gradle_home / name for name in _GRADLE_HOOKS),
        accounts=_accounts(cache_dir),
    )


@cache
def _tool_locations() -> tuple[Path, ...]:
    """Where the build tools on PATH are installed, when outside the system folders (nvm, sdkman).

    A tool's installation is the folder above its `bin/`; one that sits right in a home
    directory or at the root is not shown whole, only the program itself.
    """
    found = []
    homes = {Path("/"), Path("/root"), Path("/home"), Path.home(), *Path("/home").glob("*")}
    for name in ("node", "npm", "npx", "corepack", "mvn", "gradle", "java", "git", "python3"):
        if (path := executable(name)) is not None:
            real = Path(path).resolve()
            found.append(real if real.parent.parent in homes else real.parent.parent)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry.startswith("/") and os.path.isdir(entry) and Path(entry) not in {Path("/"), Path.home()}:
            found.append(Path(entry))
    return tuple(found)


def _is_system(path: Path) -> bool:
    """Already visible through the system folders (no second mount needed)."""
    return any(path.is_relative_to(root) for root in (*_SYSTEM, *_SYSTEM_LINKS))


def _accounts(cache_dir: Path) -> Path:
    """A folder with the sandbox's /etc/passwd and /etc/group: root, nobody and the sandbox user.

    Tools look their user up (the JVM's user.home, ssh, git); the host's accounts stay unseen.
    """
    uid, gid = sandbox_ids() or (os.getuid(), os.getgid())
    folder = cache_dir / "sandbox-accounts" / str(uid)
    passwd = (
        "root:x:0:0:root:/root:/bin/sh\n"
        f"builder:x:{uid}:{gid}:buildfixer sandbox:{Confinement.home}:/bin/sh\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    group = f"root:x:0:\nbuilder:x:{gid}:\nnogroup:x:65534:\n"
    for name, text in (("passwd", passwd), ("group", group)):
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            folder.mkdir(parents=True, exist_ok=True)
            partial = folder / f".{name}.{os.getpid()}"
            partial.write_text(text)
            partial.replace(path)
    return folder


def _workspace_git_dirs(project: Path, cache_dir: Path) -> list[Path]:
    """The git directory a workspace's `.git` file names, and its repository, when both are its own.

    The agent can rewrite `.git` to name any directory; only the git directory recorded for this
    workspace (a snapshot of it, or a worktree of the one mirror it was checked out from) is ever
    made readable (read-only), never another mirror in buildfixer's cache or anything else.
    """
    try:
        pointer = (project / ".git").read_text(errors="replace").strip()
    except OSError:
        return []  # a directory (a real repository: it is in the writable project) or none
    if not pointer.startswith("gitdir:"):
        return []
    git_dir = (project / pointer.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
    except OSError:
        common = git_dir
    ours = [cache_dir.resolve() / "repos", cache_dir.resolve() / "snapshots"]
    if not all(any(p.is_relative_to(r) for r in ours) and (p / "HEAD").is_file() for p in (git_dir, common)):
        return []
    # Workspaces are worktrees, and git records in a worktree's git directory (`gitdir`, written
    # by buildfixer's git in the cache) which checkout it belongs to: it must be this project.
    try:
        checkout = Path((git_dir / "gitdir").read_text().strip()).parent
    except OSError:
        return []
    if git_dir == common or checkout.resolve() != project.resolve():
        return []
    try:  # a snapshot of a local repository borrows its objects (written by buildfixer, not the agent)
        borrowed = (common / "objects" / "info" / "alternates").read_text().split()
    except OSError:
        borrowed = []
    return [git_dir, common, *(Path(b) for b in borrowed if Path(b).is_absolute() and Path(b).is_dir())]


def launcher(confinement: Confinement, cwd: Path | None) -> list[str]:
    """The sandbox's first process (`_LAUNCHER`) with its settings; the command follows it."""
    limits = sandbox_limits()
    ids = sandbox_ids()
    rlimits = {
        "RLIMIT_CPU": limits.cpu_s,
        "RLIMIT_FSIZE": limits.file_size,
        "RLIMIT_CORE": 0,  # no core files: a crash writes nothing and runs no core handler
    }
    if ids is not None:  # a uid of its own: every process of every sandbox counts
        rlimits["RLIMIT_NPROC"] = limits.processes * 4
    if not cgroups.memory_available():  # no control group holds the whole sandbox
        rlimits["RLIMIT_DATA"] = limits.memory
    program = filter_program()
    spec = {
        "rlimits": rlimits,
        "ids": list(ids) if ids else None,
        "home": confinement.home,
        "seccomp": program.hex() if program else "",
        "keyctl": syscall_number("keyctl") or 0,
        "cwd": str(cwd) if cwd else "",
    }
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, json.dumps(spec, separators=(",", ":"))]


def bwrap_prefix(confinement: Confinement) -> list[str]:
    """The bwrap arguments up to and including `--`, for a confinement."""
    bwrap = executable("bwrap")
    if bwrap is None:
        raise BuildfixerError("sandboxed builds need bubblewrap (apt-get install bubblewrap)")
    if sandbox_ids() is not None:
        # Root: no user namespace (its uid 0 would be the host's); the launcher drops to the
        # sandbox's uid, which loses every capability, and the filter forbids new namespaces.
        argv = [bwrap]
    else:  # a user namespace of its own, without capabilities, and no nested one
        argv = [bwrap, "--unshare-user", "--cap-drop", "ALL", "--disable-userns"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "sandbox"]
    argv += _system_mounts(confinement)
    argv += _parent_dirs([*confinement.readable, *confinement.writable])
    for path in confinement.readable:
        if path.exists():
            argv += ["--ro-bind", str(path), str(path)]
    for path in confinement.writable:
        path.mkdir(parents=True, exist_ok=True)
        argv += ["--bind", str(path), str(path)]
    for path in confinement.frozen:
        _ensure_placeholder(path)
        argv += ["--ro-bind", str(path), str(path)]
    for path in confinement.hidden:
        if path.is_symlink():
            continue
        if path.is_dir():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", "/dev/null", str(path)]
    # Never the host's network: the namespace shared by all sandboxes of the kind (loopback only);
    # online, its one way out is the registries' proxy.
    join = netns.join_prefix(confinement.network, confinement.allowed_hosts)
    # A new session: the command cannot push input into the caller's terminal (TIOCSTI).
    return [*join, *argv, "--new-session", "--die-with-parent", "--"]


def _system_mounts(confinement: Confinement) -> list[str]:
    """/usr, /opt, the merged-/usr links, the allow-listed /etc, /dev, /proc, /sys, /tmp."""
    argv: list[str] = []
    for path in _SYSTEM:
        argv += ["--ro-bind-try", path, path]
    for path in _SYSTEM_LINKS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += ["--dir", "/etc"]
    for name in _etc_entries():
        source = os.path.realpath(f"/etc/{name}")  # resolv.conf may live under /run
        if name == "mtab":
            argv += ["--symlink", "../proc/self/mounts", "/etc/mtab"]
        elif os.path.exists(source):
            argv += ["--ro-bind", source, f"/etc/{name}"]
    if confinement.accounts is not None:
        for name in ("passwd", "group"):
            argv += ["--ro-bind", str(confinement.accounts / name), f"/etc/{name}"]
    argv += ["--dev", "/dev", "--proc", "/proc"]
    for name in _PROC_READ_ONLY:
        argv += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
    for name in _PROC_EMPTY:
        if os.path.exists(f"/proc/{name}"):
            argv += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    argv += ["--ro-bind-try", "/sys", "/sys"]
    tmp_size = str(sandbox_limits().tmp_size)
    argv += ["--perms", "1777", "--size", tmp_size, "--tmpfs", "/tmp"]
    argv += ["--perms", "0755", "--dir", "/var", "--symlink", "../tmp", "/var/tmp"]
    return argv


def _parent_dirs(paths: Sequence[Path]) -> list[str]:
    """Folders above the mount points, made readable (bubblewrap would make them root's alone).

    Only the folders themselves: nothing else of /root or /home is in them.
    """
    argv: list[str] = []
    seen: set[Path] = set()
    for path in paths:
        for parent in reversed(path.parents):
            if parent != Path("/") and parent not in seen and not _is_system(parent):
                seen.add(parent)
                argv += ["--perms", "0755", "--dir", str(parent)]
    return argv


@cache
def _etc_entries() -> tuple[str, ...]:
    names = []
    for pattern in _ETC:
        names += sorted(p.name for p in Path("/etc").glob(pattern))
    return tuple(dict.fromkeys(names))


def _ensure_placeholder(path: Path) -> None:
    """Create an empty file or directory to mount read-only over (a directory when it names one)."""
    if path.exists() or path.is_symlink():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".d"):
        path.mkdir()
    else:
        path.touch()

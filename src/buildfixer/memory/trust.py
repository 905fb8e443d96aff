"""Trust domains: where a remembered fix came from, and whose fixes a repair may take.

A fix learned on one project and replayed into another carries that project's code: a hostile
project (or a hostile model working on it) would plant its payload in the next project with the
same error. So every entry records its trust domain (`Entry.origin`) and a repair takes entries
only from the domains its trust setting allows (`allowed_origins`):

- `same` (the default): the repository being repaired, and the user's own entries;
- `user`: the user's own entries only (`memory add`, `memory import`);
- `any`: every entry, another project's and those of unknown origin included.

What is not allowed is neither replayed nor shown to the model (another project's text in a
prompt is a prompt-injection channel); what is shown says where it came from (`store.origin_label`).

The identity of a repository (`repository_domain`), for `fix`:

- `git:HOST/PATH`: the URL of its remote `origin` (else of its first remote by name), without
  scheme, user, password or token, default port and `.git` (`normalize_remote`), so an https and
  an ssh clone of one repository are one domain; a fork is another;
- `root:SHA`: without a remote, its root commit(s);
- `path:/ABS/PATH`: not in a git repository, not in its HEAD commit (a folder unpacked into a
  repository around it), or git cannot read it: the project's absolute path.

A repository that arrives with its own `.git` (an archive, not a clone) names its own remote:
repair such a project with `--memory-trust user` when the same machine also repairs the project
it could claim to be.

A benchmark instance or an environment episode (`instance_domain`) is `bench:` and its
repository as the dataset names it (a URL as `git:` does, a local path resolved): a dataset
chooses its repositories, commits and (for the oracle) patches, so what a benchmark learned is
never the same domain as a user's project, whatever repository it names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from buildfixer.core.errors import BuildfixerError
from buildfixer.memory.store import USER
from buildfixer.workspace.git import git

TRUST_LEVELS = ("same", "user", "any")
DEFAULT_TRUST = "same"
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^/:]+):(?P<path>[^/].*)$")  # git@host:owner/repo
_DEFAULT_PORTS = {22, 80, 443, 9418}
_MAX_ROOTS = 8


def check_trust(value: object) -> str:
    """A --memory-trust value.

    Raises:
        BuildfixerError: Not one of TRUST_LEVELS.
    """
    if value not in TRUST_LEVELS:
        raise BuildfixerError(f"unknown memory trust {value!r} (known: {', '.join(TRUST_LEVELS)})")
    return str(value)


def allowed_origins(trust: str, domain: str | None) -> tuple[str, ...] | None:
    """The origins a repair of `domain` may take entries from under `trust`; None: any (unknown included)."""
    check_trust(trust)
    if trust == "any":
        return None
    if trust == "same" and domain:
        return (USER, domain)
    return (USER,)


def normalize_remote(url: str, top: Path | None = None) -> str:
    """A remote URL as `HOST[:PORT]/PATH`: no scheme, credentials, default port, `.git`, end slashes.

    A local remote (a path, `file://`) is its resolved path, relative ones from `top`.
    """
    text = url.strip()
    scp = _SCP.match(text)
    if "://" in text and not text.lower().startswith("file://"):
        parts = urlsplit(text)
        host = (parts.hostname or "").lower()
        try:
            port = parts.port
        except ValueError:
            port = None
        where = host + (f":{port}" if port and port not in _DEFAULT_PORTS else "")
        path = parts.path
    elif scp and not text.startswith(("/", ".", "~")):
        where, path = scp["host"].lower(), scp["path"]
    else:
        local = text[len("file://") :] if text.lower().startswith("file://") else text
        resolved = Path(os.path.expanduser(local))
        if not resolved.is_absolute() and top is not None:
            resolved = top / resolved
        return "file:" + os.path.normpath(resolved).removesuffix(".git").rstrip("/")
    path = re.sub(r"/+", "/", path).strip("/").removesuffix(".git").rstrip("/")
    return f"{where}/{path}"


def repository_domain(project: Path) -> str:
    """The trust domain of a project `fix` repairs (see the module's docstring); never raises."""
    project = project.resolve()
    try:
        top = git("rev-parse", "--show-toplevel", cwd=project, check=False, timeout=60).strip()
        # Only a folder the repository's HEAD holds is part of it: a project unpacked into a
        # repository around it (a home directory kept in git) is not that repository.
        tracked = git("rev-parse", "--verify", "--quiet", "HEAD:./", cwd=project, check=False, timeout=60)
        if top and tracked.strip():
            root = Path(top).resolve()
            remotes = sorted(git("remote", cwd=root, check=False, timeout=60).split())
            for name in (["origin"] if "origin" in remotes else []) + remotes:
                url = git("config", "--get", f"remote.{name}.url", cwd=root, check=False, timeout=60).strip()
                if url:
                    return "git:" + normalize_remote(url, root)
            listed = git("rev-list", "--max-parents=0", "HEAD", cwd=root, check=False, timeout=120)
            roots = sorted(line for line in listed.split() if re.fullmatch(r"[0-9a-f]{40,64}", line))
            if roots:
                return "root:" + ",".join(roots[:_MAX_ROOTS])
    except BuildfixerError:  # no git, a timeout: the path stands
        pass
    return f"path:{project}"


def instance_domain(source: str) -> str:
    """The trust domain of a benchmark instance or episode whose repository is `source` (a URL or a path)."""
    if "://" in source and not source.lower().startswith("file://"):
        return "bench:git:" + normalize_remote(source)
    local = source[len("file://") :] if source.lower().startswith("file://") else source
    return f"bench:path:{Path(local).expanduser().resolve()}"

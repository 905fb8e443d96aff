"""The model layer must not import litellm (about 3.6 s) until a real call is made."""

import subprocess
import sys


def test_llm_modules_do_not_import_litellm() -> None:
    code = (
        "import sys; import buildfixer.llm.litellm_model, buildfixer.llm.factory, "
        "buildfixer.llm.fake_server, buildfixer.llm.scripted, buildfixer.llm.redact; "
        "from buildfixer.llm.factory import make_model; make_model('openai/gpt-4.1', api_key='sk-x'); "
        "print('litellm' in sys.modules, 'openai' in sys.modules, 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]

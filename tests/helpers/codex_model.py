"""The stand-in model for the real `codex` (tests/fakes/codex_model.py on 127.0.0.1), started for
one test with a CODEX_HOME whose config.toml points Codex at it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FAKE_MODEL = Path(__file__).resolve().parents[1] / "fakes" / "codex_model.py"


@contextmanager
def codex_offline(codex_home: Path, model_log: Path) -> Iterator[int]:
    """Start the stand-in model (every request it answers logged to `model_log`), write
    `codex_home/config.toml` naming it as Codex's provider; yield its port; stop it."""
    codex_home.mkdir(parents=True, exist_ok=True)
    model = subprocess.Popen(
        [sys.executable, str(FAKE_MODEL), "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "CODEX_MODEL_LOG": str(model_log)},
    )
    try:
        assert model.stdout is not None
        port = int(model.stdout.readline())
        (codex_home / "config.toml").write_text(
            "# offline: the model is tests/fakes/codex_model.py\n"
            'model = "gpt-5.5"\nmodel_provider = "fake"\n\n'
            f'[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\n'
            "requires_openai_auth = false\nsupports_websockets = false\n"
        )
        yield port
    finally:
        model.terminate()
        model.wait(timeout=10)

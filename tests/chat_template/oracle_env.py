"""The reference renderer's chat-template environment (../shared/tools/jinja-oracle, Python
Jinja2), loaded once for the scripts that render with it: the oracle is a script without a .py
suffix, so it is loaded from its path."""
import datetime
import importlib.machinery
import importlib.util
import os

# The date the corpus expectations were rendered at (the oracle's --now).
CORPUS_NOW = "2024-07-26T00:00:00"


def chat_template_env(oracle_path, now=CORPUS_NOW):
    """The oracle's chat-template environment, or None when it cannot run here (no Python
    Jinja2, or no oracle at oracle_path)."""
    try:
        import jinja2  # noqa: F401  (the oracle's one dependency)
    except ImportError:
        return None
    if not os.path.isfile(oracle_path):
        return None
    loader = importlib.machinery.SourceFileLoader("jinja_oracle", oracle_path)
    spec = importlib.util.spec_from_loader("jinja_oracle", loader)
    oracle = importlib.util.module_from_spec(spec)
    loader.exec_module(oracle)
    return oracle.make_env("chat-template", datetime.datetime.fromisoformat(now))

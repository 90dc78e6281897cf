#!/usr/bin/env python3
"""Renders every chat template of the shared corpus with every conversation of conversations.json
(its "hf" side: the variables transformers' apply_chat_template gives the template) through the
reference renderer, ../shared/tools/jinja-oracle (its chat-template environment, --now
2024-07-26T00:00:00), into OUT_DIR/NAME.CASE.txt, or NAME.CASE.error holding 'Type: message' where
the template raises: the files `jinja-oracle corpus` writes, each template compiled once.

chat_template_tests runs it into a scratch folder and checks that the adapter's to_wire, given the
"cmf" side, prints exactly these. Exit code 77 when the oracle cannot run here (no Python Jinja2).

Usage: render_with_oracle.py SHARED_DIR OUT_DIR
"""
import json, os, sys

from oracle_env import chat_template_env

here = os.path.dirname(os.path.abspath(__file__))
shared, out = sys.argv[1], sys.argv[2]
env = chat_template_env(os.path.join(shared, "tools/jinja-oracle"))
if env is None:
    print("the oracle cannot run here (no Python Jinja2, or no tools/jinja-oracle)", file=sys.stderr)
    sys.exit(77)

cases = json.load(open(os.path.join(here, "conversations.json"), encoding="utf-8"))
templates = os.path.join(shared, "corpus/chat-templates/templates")
os.makedirs(out, exist_ok=True)
for name in sorted(f[:-6] for f in os.listdir(templates) if f.endswith(".jinja")):
    template = env.from_string(open(os.path.join(templates, name + ".jinja"), encoding="utf-8").read())
    for case in cases:
        try:
            text, ext = template.render(**case["hf"]), "txt"
        except Exception as e:  # the template's own failure is a result, as in the oracle
            text, ext = f"{type(e).__name__}: {e}\n", "error"
        with open(os.path.join(out, f"{name}.{case['name']}.{ext}"), "w", encoding="utf-8", newline="") as f:
            f.write(text)

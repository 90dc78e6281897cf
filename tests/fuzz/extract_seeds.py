#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets out of the JSON case files that hold them (one file per
template or completion, named by its SHA-1), so no corpus is copied into git.

usage: extract_seeds.py CORPUS_DIR SOURCE_DIR OUT_DIR   (a missing case file is skipped)
"""
import hashlib
import json
import pathlib
import sys


def templates_of(cases):
    for case in cases:
        yield case.get("template")
        yield from (case.get("partials") or {}).values()


# target -> [(root, relative case file, function from the parsed file to its strings)]
SOURCES = {
    "jinja2": [
        ("corpus", "jinja-cases/cases.json", templates_of),
        ("source", "tests/jinja2/cases/engine_cases.json", templates_of),
        ("source", "tests/jinja2/cases/prompty_cases.json", templates_of),
    ],
    "mustache": [("corpus", f"mustache-spec/{name}.json", lambda d: templates_of(d["tests"]))
                 for name in ("comments", "delimiters", "interpolation", "inverted", "partials",
                              "sections", "~dynamic-names", "~inheritance")],
    "chatml": [("corpus", "output-parsing/parser-cases.json",
                lambda d: (case.get("input") for case in d["cases"]))],
}
SOURCES["harmony"] = SOURCES["chatml"]


def chat_template_completions(cases):
    """chat_template_from_wire's inputs: the byte that picks the case's template (its line in
    chat_template_templates.txt), the options byte (0), the completion."""
    names = (pathlib.Path(__file__).resolve().parent / "chat_template_templates.txt").read_text()
    names = names.split()
    for case in cases["cases"]:
        for index, name in enumerate(names):
            if f"/{name}.jinja" in case.get("template", "") and case.get("input"):
                yield bytes([index, 0]) + case["input"].encode("utf-8")


SOURCES["chat_template_from_wire"] = [
    ("corpus", "output-parsing/parser-cases.json", chat_template_completions)]


def request_bodies(provider):
    """The request bodies of the tests' case file and of the toRequest vectors, as JSON text."""
    def of_vectors(d):
        for entry in d["vectors"]:
            v = entry["vector"]
            if (entry["operation"] == "toRequest" and v.get("provider") == provider
                    and v.get("targetApi") in ("chat", "responses")):
                yield json.dumps(v["expected"]["request_body"])
    return [("source", f"tests/{provider}/bodies.json",
             lambda d: (json.dumps(c["body"]) for c in d["requests"])),
            ("corpus", "prompty/vectors.json", of_vectors)]


SOURCES["openai_request"] = request_bodies("openai")
SOURCES["anthropic_request"] = request_bodies("anthropic")


def main():
    roots = {"corpus": pathlib.Path(sys.argv[1]), "source": pathlib.Path(sys.argv[2])}
    out = pathlib.Path(sys.argv[3])
    for target, sources in SOURCES.items():
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        for root, relative, strings in sources:
            path = roots[root] / relative
            if not path.is_file():
                continue
            for text in strings(json.loads(path.read_text(encoding="utf-8"))):
                if isinstance(text, bytes) or (isinstance(text, str) and text):
                    data = text if isinstance(text, bytes) else text.encode("utf-8")
                    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks tool definitions against the providers' and MCP's official Python packages.

Usage: validate_defs.py --format F [--strict] [FILE]

Reads a JSON array of definitions, as `toolctl export --format F [--strict]` prints it, from FILE
or standard input. Prints one line per problem, `FAIL <tool> [<format>]: <reason>`, then
`N passed, M failed` (N and M count definitions). Exits 0 when every definition passes, 1 when any
fails, 2 when the input cannot be read or is not a JSON array.

What is checked, by format:
  mcp:
    mcp.types.Tool.model_validate; no keys unknown to Tool or ToolAnnotations (the SDK would
    drop them silently); inputSchema, and outputSchema if present, of type "object"; both
    pass jsonschema's Draft202012Validator.check_schema.
  gemini, gemini-openapi:
    google.genai.types.FunctionDeclaration.model_validate (unknown keys are errors, and so are
    the SDK's "is not a valid Type" warnings); never both `parameters` and
    `parametersJsonSchema`, and each format uses its own one. gemini: parametersJsonSchema
    (and responseJsonSchema) pass check_schema. gemini-openapi: every `type` is an exact
    google.genai.types.Type name (OBJECT, STRING, ...).
  openai, openai-responses, anthropic:
    the name matches ^[a-zA-Z0-9_-]{1,64}$; function.parameters / parameters / input_schema
    pass check_schema; anthropic: input_schema is of type "object" and every input_examples
    entry validates against it. Anthropic server tools (`type: tool_search_tool_*`) are
    skipped and count as passed.
  --strict (openai, openai-responses, anthropic):
    the definition says `strict: true`. OpenAI: every object schema in the tree ($defs and
    anyOf variants included) has `additionalProperties: false` and `required` listing each
    property key exactly once. Anthropic: every object schema has `additionalProperties:
    false`. A definition that says `strict: true` gets these checks even without --strict.

Needs the packages of scripts/requirements.txt: run it with target/py-venv/bin/python after
scripts/python-env.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import warnings
from typing import Any, Callable, Iterator


def need(module: str) -> Any:
    """Imports `module`, or exits with what to do. The heavy packages (mcp, google-genai) are
    imported only by the formats that use them."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        sys.exit(
            f"validate_defs.py: {e}; run scripts/python-env and use target/py-venv/bin/python"
        )


jsonschema = need("jsonschema")

FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "gemini-openapi", "mcp")
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
Validator = jsonschema.Draft202012Validator

# Keywords whose value is a schema, a list of schemas, or a map of name -> schema.
ONE_SCHEMA = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems",
    "contentSchema",
)
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")


def short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def schema_problems(schema: Any, where: str) -> list[str]:
    """`where` is not a valid JSON Schema 2020-12 (checked against the metaschema)."""
    try:
        Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        path = "/".join(str(p) for p in e.absolute_path)
        return [f"{where} is not a valid 2020-12 schema at /{path}: {e.message}"]
    return []


def pydantic_problems(model: Any, item: Any, what: str) -> list[str]:
    """The model's validation errors, and its warnings: google-genai only *warns* about an
    unknown enum value (`'WHATEVER is not a valid Type'`, a UserWarning) and then accepts it.
    Deprecation and google-genai's "experimental" warnings are not about the definition."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model.model_validate(item)
        except need("pydantic").ValidationError as e:
            return [
                f"{what}: {'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
                + (f" (got {short(err['input'], 80)})" if err["type"] != "missing" else "")
                for err in e.errors()
            ]
    return [
        f"{what}: {w.message}" for w in caught if issubclass(w.category, UserWarning)
    ]


def subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict]]:
    """Every schema object in the tree, with its JSON pointer; values of `default`, `enum`,
    `const`, `examples` and the like are data, not schemas, and are not entered."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for key in ONE_SCHEMA:
        if isinstance(schema.get(key), dict):
            yield from subschemas(schema[key], f"{pointer}/{key}")
    if isinstance(schema.get("items"), list):  # draft-07 tuple form
        for i, sub in enumerate(schema["items"]):
            yield from subschemas(sub, f"{pointer}/items/{i}")
    for key in SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            for i, sub in enumerate(schema[key]):
                yield from subschemas(sub, f"{pointer}/{key}/{i}")
    for key in SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            for name, sub in schema[key].items():
                yield from subschemas(sub, f"{pointer}/{key}/{name}")


def is_object_schema(schema: dict) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or (
        t is None and "properties" in schema
    )


def strict_problems(schema: Any, where: str, all_required: bool) -> list[str]:
    problems = []
    for pointer, sub in subschemas(schema):
        if not is_object_schema(sub):
            continue
        at = f"{where}{pointer or '/'}"
        if sub.get("additionalProperties") is not False:
            got = sub.get("additionalProperties", "<absent>")
            problems.append(f"strict: object at {at} needs additionalProperties: false (got {short(got)})")
        if all_required:
            keys = list((sub.get("properties") or {}).keys())
            required = sub.get("required", [])
            if not isinstance(required, list):
                problems.append(f"strict: `required` at {at} is not a list")
                continue
            missing = [k for k in keys if k not in required]
            extra = [k for k in required if k not in keys]
            dupes = sorted({k for k in required if required.count(k) > 1})
            if missing or extra or dupes:
                detail = "; ".join(
                    part
                    for part in (
                        f"not required: {missing}" if missing else "",
                        f"required but not properties: {extra}" if extra else "",
                        f"listed twice: {dupes}" if dupes else "",
                    )
                    if part
                )
                problems.append(
                    f"strict: `required` at {at} must list every property key exactly once ({detail})"
                )
    return problems


def check_name(name: Any) -> list[str]:
    if not isinstance(name, str) or not NAME.match(name):
        return [f"name {short(name)} does not match {NAME.pattern}"]
    return []


def check_strict_flag(strict_value: Any, strict: bool, where: str) -> list[str]:
    if strict and strict_value is not True:
        return [f"--strict export, but {where} is {short(strict_value) if strict_value is not None else '<absent>'}"]
    return []


# --- formats ------------------------------------------------------------------------------------

def check_openai(item: dict, strict: bool) -> list[str]:
    if item.get("type") != "function":
        return [f"`type` must be \"function\", got {short(item.get('type'))}"]
    function = item.get("function")
    if not isinstance(function, dict):
        return ["`function` is missing or not an object"]
    problems = check_name(function.get("name"))
    problems += check_strict_flag(function.get("strict"), strict, "function.strict")
    if "parameters" in function:
        params = function["parameters"]
        problems += schema_problems(params, "function.parameters")
        if strict or function.get("strict") is True:
            problems += strict_problems(params, "function.parameters", all_required=True)
    elif strict:
        problems.append("strict mode needs function.parameters")
    return problems


def check_openai_responses(item: dict, strict: bool) -> list[str]:
    if item.get("type") != "function":
        return [f"`type` must be \"function\", got {short(item.get('type'))}"]
    if "function" in item:
        return ["the Responses format is flat: `function` must not be nested"]
    problems = check_name(item.get("name"))
    problems += check_strict_flag(item.get("strict"), strict, "strict")
    if "parameters" in item:
        params = item["parameters"]
        problems += schema_problems(params, "parameters")
        if strict or item.get("strict") is True:
            problems += strict_problems(params, "parameters", all_required=True)
    elif strict:
        problems.append("strict mode needs parameters")
    return problems


def check_anthropic(item: dict, strict: bool) -> list[str]:
    problems = check_name(item.get("name"))
    problems += check_strict_flag(item.get("strict"), strict, "strict")
    if "input_schema" not in item:
        return problems + ["`input_schema` is missing"]
    schema = item["input_schema"]
    bad_schema = schema_problems(schema, "input_schema")
    problems += bad_schema
    if isinstance(schema, dict) and schema.get("type") != "object":
        problems.append(f"input_schema.type must be \"object\", got {short(schema.get('type'))}")
    if strict or item.get("strict") is True:
        problems += strict_problems(schema, "input_schema", all_required=False)
    examples = item.get("input_examples")
    if examples is not None:
        if not isinstance(examples, list):
            problems.append("input_examples is not an array")
        elif not bad_schema:
            validator = Validator(schema)
            for i, example in enumerate(examples):
                try:
                    validator.validate(example)
                except jsonschema.ValidationError as e:
                    path = "/".join(str(p) for p in e.absolute_path)
                    problems.append(
                        f"input_examples[{i}] does not match input_schema at /{path}: {e.message}"
                    )
    return problems


def check_gemini(item: dict, fmt: str) -> list[str]:
    genai_types = need("google.genai.types")
    problems = pydantic_problems(genai_types.FunctionDeclaration, item, "FunctionDeclaration")
    openapi = "parameters" in item
    json_schema_key = next(
        (k for k in ("parametersJsonSchema", "parameters_json_schema") if k in item), None
    )
    if openapi and json_schema_key:
        problems.append(f"has both `parameters` and `{json_schema_key}`; Gemini takes only one")
    elif fmt == "gemini" and openapi:
        problems.append("the gemini format uses `parametersJsonSchema`, not `parameters` (that is gemini-openapi)")
    elif fmt == "gemini-openapi" and json_schema_key:
        problems.append(f"the gemini-openapi format uses `parameters`, not `{json_schema_key}` (that is gemini)")
    if fmt == "gemini-openapi" and isinstance(item.get("parameters"), dict):
        # The SDK maps `object` to OBJECT on its way out; the REST API, which takes this JSON as
        # it is, knows only the exact enum names.
        for pointer, sub in subschemas(item["parameters"]):
            known = {t.value for t in genai_types.Type} - {"TYPE_UNSPECIFIED"}
            if "type" in sub and sub["type"] not in known:
                problems.append(
                    f"parameters{pointer or '/'}: type {short(sub['type'])} is not one of {sorted(known)}"
                )
    if fmt == "gemini":
        for key in ("parametersJsonSchema", "parameters_json_schema", "responseJsonSchema", "response_json_schema"):
            if key in item:
                problems += schema_problems(item[key], key)
    return problems


def field_keys(model: Any) -> set[str]:
    """The keys a pydantic model knows: field names and their aliases."""
    return {f.alias or n for n, f in model.model_fields.items()} | set(model.model_fields)


def check_mcp(item: dict) -> list[str]:
    types = need("mcp.types")
    problems = pydantic_problems(types.Tool, item, "mcp.types.Tool")
    # The SDK's models accept and drop unknown keys; a key it does not know is a typo here.
    unknown = sorted(set(item) - field_keys(types.Tool))
    if unknown:
        problems.append(f"keys unknown to mcp.types.Tool: {unknown}")
    annotations = item.get("annotations")
    if isinstance(annotations, dict):
        unknown = sorted(set(annotations) - field_keys(types.ToolAnnotations))
        if unknown:
            problems.append(f"keys unknown to mcp.types.ToolAnnotations: {unknown}")
    for key, required in (("inputSchema", True), ("outputSchema", False)):
        if key not in item:
            continue  # a missing inputSchema is already a pydantic error
        schema = item[key]
        if schema is None and not required:
            continue
        if not isinstance(schema, dict) or schema.get("type") != "object":
            got = schema.get("type") if isinstance(schema, dict) else schema
            problems.append(f"{key}.type must be \"object\", got {short(got)}")
        problems += schema_problems(schema, key)
    return problems


def tool_name(item: Any, index: int) -> str:
    """The definition's tool name (`name`, or `function.name` for OpenAI Chat), else `#index`."""
    if isinstance(item, dict):
        function = item.get("function")
        for name in (item.get("name"), function.get("name") if isinstance(function, dict) else None):
            if isinstance(name, str) and name:
                return name
    return f"#{index}"


def validate(items: list, fmt: str, strict: bool, out: Callable[[str], None]) -> tuple[int, int]:
    passed = failed = 0
    for index, item in enumerate(items):
        name = tool_name(item, index)
        if not isinstance(item, dict):
            problems = [f"definition is not a JSON object: {short(item)}"]
        elif fmt == "anthropic" and str(item.get("type", "")).startswith("tool_search_tool_"):
            problems = []  # an Anthropic server tool: nothing of ours to check
        elif fmt == "openai":
            problems = check_openai(item, strict)
        elif fmt == "openai-responses":
            problems = check_openai_responses(item, strict)
        elif fmt == "anthropic":
            problems = check_anthropic(item, strict)
        elif fmt in ("gemini", "gemini-openapi"):
            problems = check_gemini(item, fmt)
        else:
            problems = check_mcp(item)
        for problem in problems:
            out(f"FAIL {name} [{fmt}{' --strict' if strict else ''}]: {problem}")
        if problems:
            failed += 1
        else:
            passed += 1
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Validate a JSON array of tool definitions (`toolctl export` output)."
    )
    parser.add_argument("--format", required=True, choices=FORMATS)
    parser.add_argument("--strict", action="store_true", help="the export used --strict")
    parser.add_argument("file", nargs="?", help="JSON file (default: standard input)")
    args = parser.parse_args(argv)
    if args.strict and args.format not in ("openai", "openai-responses", "anthropic"):
        parser.error(f"--strict applies to openai, openai-responses and anthropic, not {args.format}")
    try:
        if args.file and args.file != "-":
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        else:
            text = sys.stdin.read()
        items = json.loads(text)
    except (OSError, ValueError) as e:
        print(f"validate_defs.py: cannot read the definitions: {e}", file=sys.stderr)
        return 2
    if not isinstance(items, list):
        print("validate_defs.py: the input is not a JSON array of definitions", file=sys.stderr)
        return 2
    passed, failed = validate(items, args.format, args.strict, print)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

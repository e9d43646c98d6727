#!/usr/bin/env python3
"""Check queries_paraphrase.jsonl against tools.json (standard library only).

Verifies:
  * every line is a JSON object {"query": str, "expected": [str, ...]};
  * every expected name exists in tools.json; no duplicate query;
  * queries have 3 to 25 words;
  * spread: at least MIN_QUERIES queries, at least MIN_SERVERS servers, no
    server in more than MAX_PER_SERVER queries (a query counts once for every
    server among its expected tools);
  * word overlap: per query, the content words it shares with the name and
    description of its expected tools (union over the expected tools).

Words are lower-cased, split on non-letters, tokens shorter than 2 letters and
the stop words below are dropped, and each word is reduced by a simple suffix
strip (s, es, ed, ing, er, ion, repeatedly while at least 3 letters remain;
a doubled final consonant left by ing/ed/er is undoubled; a final e is
dropped), so that create/creates/created/creating/creation all meet.

Exit status 0 when every rule holds, at least MIN_ZERO_SHARE of the queries
share no content word and none shares two or more; 1 otherwise.

Usage: python3 check_paraphrase.py [-v] [queries.jsonl] [tools.json]
  -v  print every query with its shared words (default: only those sharing any)
"""

import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))

MIN_QUERIES = 160
MIN_SERVERS = 25
MAX_PER_SERVER = 12
MIN_ZERO_SHARE = 0.85
MIN_WORDS, MAX_WORDS = 3, 25

# The NLTK English stop-word list (function words only), plus "please",
# "could", "would", "let", "lets", "us" and the fragments that splitting
# contractions on the apostrophe leaves behind.
STOP_WORDS = set("""
i me my myself we our ours ourselves you your yours yourself yourselves he him
his himself she her hers herself it its itself they them their theirs
themselves what which who whom this that these those am is are was were be
been being have has had having do does did doing a an the and but if or
because as until while of at by for with about against between into through
during before after above below to from up down in out on off over under again
further then once here there when where why how all any both each few more most
other some such no nor not only own same so than too very can will just should
now
please could would let lets us
s t d ll m o re ve y don ain aren couldn didn doesn hadn hasn haven isn ma
mightn mustn needn shan shouldn wasn weren won wouldn
""".split())

SUFFIXES = ("ing", "ion", "es", "ed", "er", "s")


def stem(word):
    changed = True
    while changed:
        changed = False
        for suf in SUFFIXES:
            if word.endswith(suf) and len(word) - len(suf) >= 3:
                word = word[: -len(suf)]
                if suf in ("ing", "ed", "er") and len(word) >= 4 \
                        and word[-1] == word[-2] and word[-1] not in "aeiouls":
                    word = word[:-1]
                changed = True
                break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def content_words(text):
    """Map stem -> first surface form, for the content words of text."""
    out = {}
    for tok in re.split(r"[^a-z]+", text.lower()):
        if len(tok) < 2 or tok in STOP_WORDS:
            continue
        out.setdefault(stem(tok), tok)
    return out


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    qpath = args[0] if args else os.path.join(HERE, "queries_paraphrase.jsonl")
    tpath = args[1] if len(args) > 1 else os.path.join(HERE, "tools.json")

    tools = {t["name"]: t for t in json.load(open(tpath, encoding="utf-8"))}
    tool_words = {
        name: content_words(name + " " + t.get("description", ""))
        for name, t in tools.items()
    }

    errors = []
    queries = []
    with open(qpath, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append(f"line {n}: empty line")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: invalid JSON ({e})")
                continue
            if not isinstance(obj, dict) or set(obj) != {"query", "expected"}:
                errors.append(f"line {n}: want exactly the keys query and expected")
                continue
            q, exp = obj["query"], obj["expected"]
            if not isinstance(q, str) or not q.strip():
                errors.append(f"line {n}: query must be a non-empty string")
                continue
            if not isinstance(exp, list) or not exp \
                    or not all(isinstance(e, str) for e in exp):
                errors.append(f"line {n}: expected must be a non-empty list of names")
                continue
            if len(set(exp)) != len(exp):
                errors.append(f"line {n}: duplicate name in expected")
            missing = [e for e in exp if e not in tools]
            if missing:
                errors.append(f"line {n}: unknown tool(s) {missing}")
                continue
            words = len(q.split())
            if not MIN_WORDS <= words <= MAX_WORDS:
                errors.append(f"line {n}: {words} words, want {MIN_WORDS}..{MAX_WORDS}")
            queries.append((n, q, exp))

    seen = Counter(q.strip().lower() for _, q, _ in queries)
    for q, c in seen.items():
        if c > 1:
            errors.append(f"duplicate query ({c}x): {q}")

    per_server = Counter()
    for _, _, exp in queries:
        for s in {tools[e]["_meta"]["server"] for e in exp}:
            per_server[s] += 1
    if len(queries) < MIN_QUERIES:
        errors.append(f"{len(queries)} queries, want at least {MIN_QUERIES}")
    if len(per_server) < MIN_SERVERS:
        errors.append(f"{len(per_server)} servers covered, want at least {MIN_SERVERS}")
    for s, c in sorted(per_server.items()):
        if c > MAX_PER_SERVER:
            errors.append(f"server {s}: {c} queries, want at most {MAX_PER_SERVER}")

    buckets = Counter()
    for n, q, exp in queries:
        target = {}
        for e in exp:
            target.update(tool_words[e])
        qw = content_words(q)
        shared = sorted(qw[s] for s in qw if s in target)
        k = min(len(shared), 2)
        buckets[k] += 1
        if verbose or shared:
            print(f"line {n:3d} shared={len(shared)} {shared}  | {q}")

    total = len(queries)
    all_servers = {t["_meta"]["server"] for t in tools.values()}
    distinct_tools = len({e for _, _, exp in queries for e in exp})
    print()
    print(f"queries: {total}   distinct expected tools: {distinct_tools}   "
          f"servers: {len(per_server)} of {len(all_servers)}")
    print("per server: " + ", ".join(f"{s} {c}" for s, c in per_server.most_common()))
    print("not covered: " + (", ".join(sorted(all_servers - set(per_server))) or "none"))
    if total:
        for k, label in ((0, "0"), (1, "1"), (2, "2+")):
            print(f"shared content words {label:>2}: {buckets[k]:4d} "
                  f"({100.0 * buckets[k] / total:.1f}%)")
        if buckets[0] / total < MIN_ZERO_SHARE:
            errors.append(f"only {100.0 * buckets[0] / total:.1f}% share no content "
                          f"word, want at least {100 * MIN_ZERO_SHARE:.0f}%")
        if buckets[2]:
            errors.append(f"{buckets[2]} queries share 2+ content words, want none")

    if errors:
        print()
        for e in errors:
            print("ERROR:", e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Keys, a JWKS and access tokens for the OAuth tests, made by an implementation independent of
the server's (`cryptography` for the keys, PyJWT for the tokens).

Usage: oauth_keys.py DIR ISSUER AUDIENCE

Writes DIR/jwks.json (the public keys: EC P-256 `ec-1`, RSA 2048 `rsa-1`, Ed25519 `ed-1`) and
DIR/tokens.json, a map from a case name to a signed token:

- reader (ES256): scope `tools:read`;
- writer (RS256): scopes `tools:read notes:write`;
- eddsa (EdDSA): scope `tools:read`;
- expired, not_yet_valid, wrong_audience, wrong_issuer: as `reader`, but for the flaw named;
- unknown_kid: signed by a key the JWKS does not hold;
- no_base_scope: valid, but without `tools:read`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm


def public_jwk(algorithm, key, kid: str, alg: str) -> dict:
    jwk = algorithm.to_jwk(key.public_key(), as_dict=True)
    jwk.update({"kid": kid, "alg": alg, "use": "sig"})
    return jwk


def main() -> int:
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} DIR ISSUER AUDIENCE", file=sys.stderr)
        return 2
    out, issuer, audience = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    stranger = ec.generate_private_key(ec.SECP256R1())
    jwks = {
        "keys": [
            public_jwk(ECAlgorithm, ec_key, "ec-1", "ES256"),
            public_jwk(RSAAlgorithm, rsa_key, "rsa-1", "RS256"),
            public_jwk(OKPAlgorithm, ed_key, "ed-1", "EdDSA"),
        ]
    }
    now = int(time.time())

    def token(key, alg: str, kid: str, scope: str = "tools:read", **claims) -> str:
        payload = {
            "iss": issuer,
            "aud": audience,
            "sub": "user-7",
            "client_id": "python-client",
            "scope": scope,
            "iat": now,
            "exp": now + 600,
        }
        payload.update(claims)
        return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})

    tokens = {
        "reader": token(ec_key, "ES256", "ec-1"),
        "writer": token(rsa_key, "RS256", "rsa-1", scope="tools:read notes:write", sub="user-8"),
        "eddsa": token(ed_key, "EdDSA", "ed-1"),
        "expired": token(ec_key, "ES256", "ec-1", iat=now - 7200, exp=now - 3600),
        "not_yet_valid": token(ec_key, "ES256", "ec-1", nbf=now + 3600),
        "wrong_audience": token(ec_key, "ES256", "ec-1", aud="https://other.example.test/mcp"),
        "wrong_issuer": token(ec_key, "ES256", "ec-1", iss="https://evil.example.test"),
        "unknown_kid": token(stranger, "ES256", "ec-unknown"),
        "no_base_scope": token(ec_key, "ES256", "ec-1", scope="notes:write"),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "jwks.json").write_text(json.dumps(jwks, indent=2))
    (out / "tokens.json").write_text(json.dumps(tokens, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A fresh leak round: secrets planted where a new user's data really holds them, built with ``mix build``,
and every output the build writes scanned for what got through.

    .venv/bin/python -m bench.leak_round [--seed N] [--keep DIR] [--out report.json]

Written (issue 47) before the redaction rules were read again, from the vendors' published formats,
so that the round measures the rules rather than echoing them. One seeded draw:

  * values: ``TYPES`` (vendor tokens by their issued prefix/length/alphabet, passwords whose first
    character may be a symbol, connection URLs, headers, private keys of every armour), each value
    random and new;
  * contexts: assignments, arguments, config entries, headers and URLs in ~20 languages and formats
    (Rust consts, Ruby keyword arguments, YAML, INI, ``.npmrc``, ``ldap.conf``, properties, SQL, XML,
    HCL, ...), notebooks (code, output, markdown), a git history whose keys are rotated (commits), a
    GitHub issues export, and three transcript formats (OpenAI chat, Claude Code, SWE-agent) with the
    value in tool-call arguments, tool outputs and prose.

Scanned after the build: every decoded shard, every Parquet file (each row as JSON), every JSON,
JSONL, YAML, text and Markdown file under the output folder (raw and JSON-unescaped), and the
tokenizer vocabulary. A value counts as leaked where the value, its body (the part only it has: no
vendor prefix, no armour) or any 12-character window of its body is found. Reported per type and
per context.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import string
import subprocess
import sys
import tempfile
import textwrap
import urllib.parse
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
LOWER_DIGITS = string.ascii_lowercase + string.digits
BASE32 = string.ascii_lowercase + "234567"
SYMBOLS = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
WINDOW = 12  # a leaked value: its body, or any run of this many of its body's characters


@dataclass(frozen=True, slots=True)
class Plant:
    """One planted value: its type, the context it sits in, the input file, the value as written,
    and its body (what only this value has: no vendor prefix, no armour, no fixed DER header)."""

    type: str
    context: str
    path: str
    value: str
    body: str

    def needles(self) -> list[str]:
        """The body, and its 12-character windows (per line, for multi-line key bodies)."""
        found = {self.body} if len(self.body) < WINDOW else set()
        for line in self.body.split("\n"):
            if len(line) < WINDOW:
                found.add(line) if len(line) >= 8 else None
            found.update(line[i:i + WINDOW] for i in range(len(line) - WINDOW + 1))
        return sorted(found)


def _c(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random, forbidden: str, n: int | None = None) -> str:
    """A generated password: letters, digits and symbols; half of them begin with a symbol (the
    class issue 47 found missed). ``forbidden``: what the context cannot hold unescaped."""
    symbols = "".join(s for s in SYMBOLS if s not in forbidden)
    n = n or rng.randrange(14, 28)
    chars = [rng.choice(ALNUM + symbols * 2) for _ in range(n)]
    chars[0] = rng.choice(symbols) if rng.random() < 0.5 and symbols else rng.choice(string.ascii_letters)
    for i in rng.sample(range(1, n), 3):  # at least a digit, an upper and a symbol somewhere
        chars[i] = rng.choice(string.digits + string.ascii_uppercase + symbols)
    return "".join(chars)


def _b64(rng: random.Random, n: int, urlsafe: bool = False) -> str:
    raw = rng.randbytes(n)
    return (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _jwt_rs256(rng: random.Random) -> tuple[str, str]:
    def part(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")
    header = part({"alg": "RS256", "kid": _c(rng, URLSAFE, 43)})
    claims = part({"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "prod",
                   "sub": f"system:serviceaccount:prod:deployer-{_c(rng, LOWER_DIGITS, 5)}",
                   "jti": _uuid(rng)})
    signature = base64.urlsafe_b64encode(rng.randbytes(256)).decode().rstrip("=")
    token = f"{header}.{claims}.{signature}"
    return token, token[len("eyJhbGciOiJSUzI1NiIsImtpZCI6"):]


# --- the types: (maker(rng, forbidden) -> (value, body)), and their conventional key name ----------

Maker = Callable[[random.Random, str], tuple[str, str]]


def _prefixed(prefix: str, alphabet: str, n: int, suffix: Callable[[random.Random], str] | None = None) -> Maker:
    def make(rng: random.Random, forbidden: str) -> tuple[str, str]:
        body = _c(rng, alphabet, n) + (suffix(rng) if suffix else "")
        return prefix + body, body
    return make


def _pw(n: int | None = None) -> Maker:
    def make(rng: random.Random, forbidden: str) -> tuple[str, str]:
        value = _password(rng, forbidden, n)
        return value, value
    return make


def _x_bearer(rng: random.Random, forbidden: str) -> tuple[str, str]:
    # X (Twitter) app-only bearer tokens: a run of "A"s, then URL-encoded base64 (%2B, %3D).
    middle = _c(rng, string.digits, 6) + "AAAAAA" + _c(rng, ALNUM, 18) + "%2B" + _c(rng, ALNUM, 12) + "%3D"
    body = middle + _c(rng, ALNUM, 50)
    return "A" * 22 + body, body


def _fcm(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _c(rng, URLSAFE, 7) + ":APA91b" + _c(rng, URLSAFE, 134)
    return "AAAA" + body, body


def _npm_auth(rng: random.Random, forbidden: str) -> tuple[str, str]:
    value = base64.b64encode(f"ci-publisher:{_password(rng, ':')}".encode()).decode()
    return value, value


def _basic_header(rng: random.Random, forbidden: str) -> tuple[str, str]:
    value = base64.b64encode(f"svc-{_c(rng, LOWER_DIGITS, 5)}:{_password(rng, ':')}".encode()).decode()
    return value, value


def _sas_sig(rng: random.Random, forbidden: str) -> tuple[str, str]:
    sig = urllib.parse.quote(base64.b64encode(rng.randbytes(32)).decode(), safe="")
    return sig, sig


def _fly(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _b64(rng, 120, urlsafe=True).rstrip("=")
    return "FlyV1 fm2_" + body, body


def _aws_session(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _b64(rng, 240)
    return "IQoJb3JpZ2luX2VjE" + body, body


def _braintree(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _c(rng, LOWER_DIGITS, 16) + "$" + _c(rng, HEX, 32)
    return "access_token$production$" + body, body


def _intercom(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _b64(rng, 42)
    return "dG9rOj" + body, body


def _laravel(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _b64(rng, 32)
    return "base64:" + body, body


def _wireguard(rng: random.Random, forbidden: str) -> tuple[str, str]:
    value = _b64(rng, 32)
    return value, value


def _mailchimp(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _c(rng, HEX, 32)
    return f"{body}-us{rng.randrange(1, 21)}", body


def _asana(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = f"{_c(rng, string.digits, 16)}/{_c(rng, string.digits, 16)}:{_c(rng, HEX, 32)}"
    return "2/" + body, body


def _sentry_org(rng: random.Random, forbidden: str) -> tuple[str, str]:
    claims = base64.b64encode(json.dumps({"iat": rng.randrange(1_700_000_000, 1_800_000_000),
                                          "url": "https://sentry.io", "org": f"acme-{_c(rng, LOWER_DIGITS, 6)}",
                                          "nonce": _c(rng, ALNUM, 16)}).encode()).decode().rstrip("=")
    tail = _c(rng, URLSAFE, 43)
    return f"sntrys_{claims}_{tail}", f"{claims[12:]}_{tail}"  # claims open with the same '{"iat": 1'


def _uuid_maker(rng: random.Random, forbidden: str) -> tuple[str, str]:
    value = _uuid(rng)
    return value, value


def _plaid(rng: random.Random, forbidden: str) -> tuple[str, str]:
    body = _uuid(rng)
    return "access-production-" + body, body


def _k8s_jwt(rng: random.Random, forbidden: str) -> tuple[str, str]:
    return _jwt_rs256(rng)


SECRET_TYPES: dict[str, tuple[str, Maker]] = {
    # Passwords and shared secrets a person or a generator chose: any character, often a symbol first.
    "db_password": ("DB_PASSWORD", _pw()),
    "admin_password": ("ADMIN_PASSWORD", _pw()),
    "smtp_password": ("SMTP_PASSWORD", _pw()),
    "mysql_root_password": ("MYSQL_ROOT_PASSWORD", _pw()),
    "redis_password": ("REDIS_PASSWORD", _pw()),
    "keystore_password": ("KEYSTORE_PASSWORD", _pw()),
    "ldap_bind_password": ("LDAP_BIND_PASSWORD", _pw()),
    "session_secret": ("SESSION_SECRET", _pw(32)),
    "jwt_signing_secret": ("JWT_SECRET", _pw(40)),
    "flask_secret_key": ("SECRET_KEY", _pw(30)),
    "webhook_secret": ("WEBHOOK_SECRET", _prefixed("", HEX, 40)),
    "oauth_client_secret": ("CLIENT_SECRET", _prefixed("", URLSAFE, 40)),
    "encryption_key": ("ENCRYPTION_KEY", _wireguard),  # 32 random bytes, base64: the same shape
    "hmac_key": ("HMAC_SIGNING_KEY", _prefixed("", HEX, 64)),
    "symfony_app_secret": ("APP_SECRET", _prefixed("", HEX, 32)),
    "laravel_app_key": ("APP_KEY", _laravel),
    # Vendor tokens (prefix, length and alphabet as issued).
    "x_bearer_token": ("TWITTER_BEARER_TOKEN", _x_bearer),
    "fcm_server_key": ("FCM_SERVER_KEY", _fcm),
    "okta_api_token": ("OKTA_API_TOKEN", _prefixed("00", URLSAFE, 40)),
    "npm_basic_auth": ("NPM_AUTH", _npm_auth),
    "npm_legacy_token": ("NPM_AUTH_TOKEN", _uuid_maker),
    "asana_pat": ("ASANA_ACCESS_TOKEN", _asana),
    "mailchimp_key": ("MAILCHIMP_API_KEY", _mailchimp),
    "sentry_org_token": ("SENTRY_AUTH_TOKEN", _sentry_org),
    "algolia_admin_key": ("ALGOLIA_ADMIN_KEY", _prefixed("", HEX, 32)),
    "cloudflare_api_token": ("CLOUDFLARE_API_TOKEN", _prefixed("", URLSAFE, 40)),
    "cloudflare_global_key": ("CLOUDFLARE_API_KEY", _prefixed("", HEX, 37)),
    "netlify_token": ("NETLIFY_AUTH_TOKEN", _prefixed("nfp_", ALNUM, 36)),
    "vercel_token": ("VERCEL_TOKEN", _prefixed("", ALNUM, 24)),
    "render_key": ("RENDER_API_KEY", _prefixed("rnd_", ALNUM, 32)),
    "fly_token": ("FLY_API_TOKEN", _fly),
    "neon_key": ("NEON_API_KEY", _prefixed("napi_", LOWER_DIGITS, 64)),
    "resend_key": ("RESEND_API_KEY", _prefixed("re_", ALNUM, 8, lambda r: "_" + _c(r, ALNUM, 24))),
    "mistral_key": ("MISTRAL_API_KEY", _prefixed("", ALNUM, 32)),
    "cohere_key": ("COHERE_API_KEY", _prefixed("", ALNUM, 40)),
    "together_key": ("TOGETHER_API_KEY", _prefixed("", HEX, 64)),
    "deepseek_key": ("DEEPSEEK_API_KEY", _prefixed("sk-", HEX, 32)),
    "azure_openai_key": ("AZURE_OPENAI_API_KEY", _prefixed("", HEX, 32)),
    "snyk_token": ("SNYK_TOKEN", _uuid_maker),
    "circleci_pat": ("CIRCLECI_TOKEN", _prefixed("CCIPAT_", ALNUM, 22, lambda r: "_" + _c(r, HEX, 40))),
    "bitbucket_app_password": ("BITBUCKET_APP_PASSWORD", _prefixed("ATBB", ALNUM, 32, lambda r: _c(r, HEX.upper(), 8))),
    "azure_devops_pat": ("AZURE_DEVOPS_PAT", _prefixed("", BASE32, 52)),
    "jfrog_api_key": ("ARTIFACTORY_API_KEY", _prefixed("AKCp", ALNUM, 69)),
    "datadog_api_key": ("DD_API_KEY", _prefixed("", HEX, 32)),
    "datadog_app_key": ("DD_APP_KEY", _prefixed("", HEX, 40)),
    "pagerduty_token": ("PAGERDUTY_TOKEN", _prefixed("u+", URLSAFE, 18)),
    "zendesk_token": ("ZENDESK_API_TOKEN", _prefixed("", ALNUM, 40)),
    "intercom_token": ("INTERCOM_ACCESS_TOKEN", _intercom),
    "twitch_client_secret": ("TWITCH_CLIENT_SECRET", _prefixed("", LOWER_DIGITS, 30)),
    "discord_client_secret": ("DISCORD_CLIENT_SECRET", _prefixed("", URLSAFE, 32)),
    "facebook_token": ("FACEBOOK_ACCESS_TOKEN", _prefixed("EAAG", ALNUM, 180)),
    "plaid_access_token": ("PLAID_ACCESS_TOKEN", _plaid),
    "braintree_token": ("BRAINTREE_ACCESS_TOKEN", _braintree),
    "razorpay_secret": ("RAZORPAY_KEY_SECRET", _prefixed("", ALNUM, 24)),
    "paypal_client_secret": ("PAYPAL_CLIENT_SECRET", _prefixed("E", URLSAFE, 79)),
    "k8s_service_account_token": ("KUBE_TOKEN", _k8s_jwt),
    "ethereum_private_key": ("DEPLOYER_PRIVATE_KEY", _prefixed("0x", HEX, 64)),
    "aws_session_token": ("AWS_SESSION_TOKEN", _aws_session),
    "aws_temporary_key_id": ("AWS_ACCESS_KEY_ID", _prefixed("ASIA", string.ascii_uppercase + "234567", 16)),
    "wireguard_private_key": ("WG_PRIVATE_KEY", _wireguard),
    "bearer_token": ("API_BEARER_TOKEN", _prefixed("", URLSAFE, 48)),
    "basic_auth_credentials": ("BASIC_AUTH", _basic_header),
    "api_key_header": ("X_API_KEY", _prefixed("", ALNUM, 40)),
    "azure_sas_signature": ("AZURE_SAS_URL", _sas_sig),
    "git_credential_token": ("GIT_TOKEN", _prefixed("", ALNUM, 40)),
}

# Private keys: their armour, and the DER header their body starts with (public, shared by every key).
KEY_ARMOURS = {
    "rsa_private_key": ("RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100")),
    "ec_private_key": ("EC PRIVATE KEY", bytes.fromhex("307702010104")),
    "pkcs8_private_key": ("PRIVATE KEY", bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7")),
    "encrypted_private_key": ("ENCRYPTED PRIVATE KEY", bytes.fromhex("308205053057")),
    "dsa_private_key": ("DSA PRIVATE KEY", bytes.fromhex("308201bb02010002818100")),
    "openssh_private_key": ("OPENSSH PRIVATE KEY", b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none"),
    "pgp_private_key": ("PGP PRIVATE KEY BLOCK", b"\x95\x03\xc6\x04"),
}


def _armoured(rng: random.Random, kind: str) -> tuple[str, str]:
    """A private key in its armour (64-column base64), and its body (the lines after the fixed header)."""
    label, header = KEY_ARMOURS[kind]
    encoded = base64.b64encode(header + rng.randbytes(rng.randrange(300, 700))).decode()
    lines = [encoded[i:i + 64] for i in range(0, len(encoded), 64)]
    skip = len(base64.b64encode(header).decode()) + 4  # the part every key of this kind shares
    body = "\n".join([lines[0][skip:]] + lines[1:])
    middle = "\n".join(lines)
    if kind == "pgp_private_key":
        middle = f"Version: GnuPG v2\n\n{middle}\n={_c(rng, ALNUM + '+/', 4)}"
    return f"-----BEGIN {label}-----\n{middle}\n-----END {label}-----\n", body


def _ppk(rng: random.Random) -> tuple[str, str]:
    public = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rng.randbytes(32)).decode()
    private = base64.b64encode(b"\x00\x00\x00\x20" + rng.randbytes(32)).decode()
    mac = _c(rng, HEX, 64)
    text = (f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@acme-{_c(rng, LOWER_DIGITS, 4)}\n"
            f"Public-Lines: 2\n{public[:64]}\n{public[64:]}\nPrivate-Lines: 1\n{private}\nPrivate-MAC: {mac}\n")
    return text, private[8:] + "\n" + mac


def _openvpn(rng: random.Random) -> tuple[str, str]:
    lines = [_c(rng, HEX, 32) for _ in range(16)]
    body = "\n".join(lines)
    return ("#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----\n"
            f"{body}\n-----END OpenVPN Static key V1-----\n"), body


def make_key(rng: random.Random, kind: str) -> tuple[str, str]:
    if kind == "putty_private_key":
        return _ppk(rng)
    if kind == "openvpn_static_key":
        return _openvpn(rng)
    return _armoured(rng, kind)


KEY_TYPES = (*KEY_ARMOURS, "putty_private_key", "openvpn_static_key")


# --- contexts: one line (or snippet) holding a key and its value -----------------------------------

def _snake(env: str) -> str:
    return env.lower()


def _camel(env: str) -> str:
    words = env.lower().split("_")
    return words[0] + "".join(w.title() for w in words[1:])


def _dotted(env: str) -> str:
    return env.lower().replace("_", ".")


def _kebab(env: str) -> str:
    return env.lower().replace("_", "-")


@dataclass(frozen=True, slots=True)
class Context:
    """Where a value sits: the file it is in, how its line is written, and the characters the value
    cannot hold there unescaped."""

    name: str
    path: str
    line: Callable[[str, str], str]  # (conventional key, value) -> line
    forbidden: str = "'\"\\"  # a quoted value: its quote and backslash; a bare one adds space and more
    head: str = ""
    tail: str = ""


CONTEXTS: tuple[Context, ...] = (
    Context("python_assignment", "app/settings.py", lambda k, v: f'{k} = "{v}"',
            head='"""Production settings."""\nimport os\n\nDEBUG = False\n'),
    Context("python_keyword_argument", "app/clients.py",
            lambda k, v: f"client_{hashlib.md5(v.encode()).hexdigest()[:4]} = Client(host='db.internal', {_snake(k)}='{v}')",
            head="from acme.clients import Client\n\n"),
    Context("python_dict_entry", "app/config.py", lambda k, v: f'    "{_snake(k)}": "{v}",',
            head="CONFIG = {\n", tail="}\n"),
    Context("python_environ_default", "app/boot.py", lambda k, v: f"os.environ.setdefault('{k}', '{v}')",
            head="import os\n\n"),
    Context("rust_const", "src/config.rs", lambda k, v: f'pub const {k}: &str = "{v}";',
            head="//! Service configuration.\n\n"),
    Context("rust_struct_field", "src/client.rs", lambda k, v: f'        {_snake(k)}: String::from("{v}"),',
            head="pub fn settings() -> Settings {\n    Settings {\n", tail="    }\n}\n"),
    Context("ruby_keyword_argument", "lib/acme/client.rb",
            lambda k, v: f"  Acme::Client.new(host: 'db.internal', {_snake(k)}: '{v}')",
            head="module Acme\n  def self.client\n", tail="  end\nend\n"),
    Context("ruby_hash_rocket", "config/initializers/services.rb", lambda k, v: f'  :{_snake(k)} => "{v}",',
            head="SERVICES = {\n", tail="}\n"),
    Context("javascript_const", "src/config.js", lambda k, v: f"const {_camel(k)} = '{v}';",
            tail="module.exports = {};\n"),
    Context("typescript_object", "src/settings.ts", lambda k, v: f'  {_camel(k)}: "{v}",',
            head="export const settings = {\n", tail="};\n"),
    Context("go_struct_field", "internal/config/config.go", lambda k, v: f'\t\t{_camel(k).title()[:1] + _camel(k)[1:]}: "{v}",',
            head="package config\n\nfunc Default() Config {\n\treturn Config{\n", tail="\t}\n}\n"),
    Context("go_raw_string_const", "internal/config/secrets.go", lambda k, v: f"const {_camel(k)} = `{v}`",
            forbidden="`\\ ", head="package config\n\n"),
    Context("java_constant", "src/main/java/com/acme/Config.java",
            lambda k, v: f'    private static final String {k} = "{v}";',
            head="package com.acme;\n\npublic final class Config {\n", tail="}\n"),
    Context("java_builder_argument", "src/main/java/com/acme/Clients.java",
            lambda k, v: f'        builder.{_camel(k)}("{v}");', head="class Clients {\n    void configure(Builder builder) {\n",
            tail="    }\n}\n"),
    Context("csharp_connection_string", "src/Acme/Db.cs",
            lambda k, v: f'    const string {_camel(k).title()} = "Server=db;Database=app;User Id=sa;Password={v};";',
            forbidden="'\"\\ ;", head="class Db {\n", tail="}\n"),
    Context("php_define", "wp-config.php", lambda k, v: f"define( '{k}', '{v}' );", head="<?php\n"),
    Context("php_array_entry", "config/services.php", lambda k, v: f"    '{_snake(k)}' => '{v}',",
            head="<?php\nreturn [\n", tail="];\n"),
    Context("kotlin_gradle", "app/build.gradle.kts", lambda k, v: f'        {_camel(k)} = "{v}"',
            forbidden="'\"\\ $", head="android {\n    signingConfigs {\n", tail="    }\n}\n"),
    Context("swift_let", "Sources/App/Secrets.swift", lambda k, v: f'let {_camel(k)} = "{v}"',
            head="import Foundation\n\n"),
    Context("c_define", "include/acme_config.h", lambda k, v: f'#define ACME_{k} "{v}"',
            head="#pragma once\n\n"),
    Context("cpp_const_char", "src/credentials.cc", lambda k, v: f'static const char* k{_camel(k).title()} = "{v}";',
            forbidden="'\"\\ ?", head='#include "credentials.h"\n\n'),
    Context("perl_my", "bin/sync.pl", lambda k, v: f"my ${_snake(k)} = '{v}';", head="use strict;\nuse warnings;\n\n"),
    Context("lua_local", "conf/app.lua", lambda k, v: f'local {_snake(k)} = "{v}"', tail="return {}\n"),
    Context("shell_export", "scripts/env.sh", lambda k, v: f"export {k}='{v}'", head="#!/usr/bin/env bash\n"),
    Context("dockerfile_env", "Dockerfile", lambda k, v: f"ENV {k}={v}", forbidden="'\"\\ $#",
            head="FROM python:3.12-slim\n"),
    Context("terraform_hcl", "infra/main.tf", lambda k, v: f'  {_snake(k)} = "{v}"',
            forbidden="'\"\\ $%", head='resource "acme_service" "api" {\n', tail="}\n"),
    Context("toml_entry", "config/app.toml", lambda k, v: f'{_snake(k)} = "{v}"', head="[service]\n"),
    Context("yaml_double_quoted", "config/production.yaml", lambda k, v: f'  {_snake(k)}: "{v}"', head="service:\n"),
    Context("yaml_single_quoted", "deploy/values.yaml", lambda k, v: f"    {_camel(k)}: '{v}'",
            head="app:\n  secrets:\n"),
    Context("yaml_plain", "config/application.yml", lambda k, v: f"    {_kebab(k)}: {v}",
            forbidden="'\"\\ #:{}[],&*!|>%@`", head="spring:\n  custom:\n"),
    Context("compose_environment", "docker-compose.yml", lambda k, v: f"      - {k}={v}",
            forbidden="'\"\\ $#", head="services:\n  api:\n    image: acme/api\n    environment:\n"),
    Context("kubernetes_secret", "k8s/secret.yaml", lambda k, v: f"  {_snake(k)}: '{v}'",
            head="apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n"),
    Context("ini_entry", "config/app.ini", lambda k, v: f"{_snake(k)} = {v}", forbidden="'\"\\ ;#",
            head="[main]\n"),
    Context("mysql_cnf", ".my.cnf", lambda k, v: f"password={v}", forbidden="'\"\\ ;#", head="[client]\nuser=app\n"),
    Context("java_properties_equals", "src/main/resources/application.properties",
            lambda k, v: f"acme.{_dotted(k)}={v}", forbidden="'\"\\ #!"),
    Context("java_properties_colon", "conf/mail.properties", lambda k, v: f"mail.{_dotted(k)}: {v}",
            forbidden="'\"\\ #!"),
    Context("dotenv_quoted", ".env.production", lambda k, v: f'{k}="{v}"', forbidden="'\"\\ $`"),
    Context("dotenv_plain", ".env", lambda k, v: f"{k}={v}", forbidden="'\"\\ $#`"),
    Context("json_settings", "appsettings.json", lambda k, v: f'    "{_camel(k)}": "{v}",',
            head='{\n  "Secrets": {\n', tail='    "Enabled": true\n  }\n}\n'),
    Context("xml_element", "settings.xml", lambda k, v: f"      <{_camel(k)}>{v}</{_camel(k)}>",
            forbidden="'\"\\ <>&", head="<settings>\n  <servers>\n    <server>\n",
            tail="    </server>\n  </servers>\n</settings>\n"),
    Context("sql_identified_by", "db/init.sql", lambda k, v: f"CREATE USER 'app_{_snake(k)[:6]}'@'%' IDENTIFIED BY '{v}';"),
    Context("sql_with_password", "db/roles.sql", lambda k, v: f"ALTER ROLE {_snake(k)[:8]} WITH LOGIN PASSWORD '{v}';"),
    Context("markdown_prose", "docs/operations.md",
            lambda k, v: f"The {k.replace('_', ' ').lower()} for staging is {v} - rotate it after the demo.",
            forbidden="'\"\\ ", head="# Operations\n\n"),
    Context("log_line", "logs/app.log",
            lambda k, v: f"2026-05-02 10:41:07,311 DEBUG boot: resolved {_snake(k)}={v} from environment",
            forbidden="'\"\\ "),
)
CONTEXT_BY_NAME = {c.name: c for c in CONTEXTS}


# Special-purpose contexts (a value type with its own file shape).
def _npmrc(values: dict[str, str]) -> str:
    return ("registry=https://registry.npmjs.org/\n"
            f"//npm.pkg.acme.dev/:_auth={values['npm_basic_auth']}\n"
            f"//registry.npmjs.org/:_authToken={values['npm_legacy_token']}\nalways-auth=true\n")


def _ldap_conf(password: str) -> str:
    return ("# /etc/ldap.conf\nbase dc=acme,dc=dev\nuri ldaps://ldap.acme.dev/\n"
            f"binddn cn=reader,dc=acme,dc=dev\nbindpw {password}\nssl on\n")


# --- the round ---------------------------------------------------------------------------------------

@dataclass
class Round:
    """One draw: what the build reads (repository files, a history, an issues export, transcripts) and
    what was planted."""

    seed: int
    files: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)  # (message, path -> text/None)
    issues: list[dict] = field(default_factory=list)
    transcripts: dict[str, str] = field(default_factory=dict)  # file name -> text
    plants: list[Plant] = field(default_factory=list)

    def plant(self, kind: str, context: str, path: str, value: str, body: str) -> None:
        self.plants.append(Plant(kind, context, path, value, body))


def _value(rng: random.Random, kind: str, forbidden: str = "'\"\\ ") -> tuple[str, str]:
    return SECRET_TYPES[kind][1](rng, forbidden)


def _plant_files(r: Round, rng: random.Random, per_type: int) -> None:
    """Every secret type in ``per_type`` contexts drawn at random; every context used at least once."""
    lines: dict[str, list[str]] = defaultdict(list)
    kinds = list(SECRET_TYPES)
    pairs = [(kind, CONTEXTS[i % len(CONTEXTS)].name) for i, kind in enumerate(kinds)]  # every context once
    for kind in kinds:
        pairs += [(kind, c.name) for c in rng.sample(CONTEXTS, per_type - 1)]
    for kind, name in pairs:
        env = SECRET_TYPES[kind][0]
        # A vendor value the drawn context cannot hold unescaped goes to the next context that can.
        start = [c.name for c in CONTEXTS].index(name)
        for context in CONTEXTS[start:] + CONTEXTS[:start]:
            value, body = _value(rng, kind, context.forbidden)
            written = value
            if kind == "azure_sas_signature":
                written = (f"https://acme{_c(rng, LOWER_DIGITS, 4)}.blob.core.windows.net/backups?sv=2022-11-02&ss=b"
                           f"&srt=co&sp=rl&se=2026-12-31T00:00:00Z&spr=https&sig={value}")
            if not any(ch in written for ch in context.forbidden):
                break
        else:
            continue
        lines[context.name].append(context.line(env, written))
        r.plant(kind, context.name, context.path, value, body)
    for name, body_lines in lines.items():
        context = CONTEXT_BY_NAME[name]
        r.files[context.path] = context.head + "\n".join(body_lines) + "\n" + context.tail


def _plant_special(r: Round, rng: random.Random) -> None:
    """The formats with their own shapes: .npmrc, ldap.conf, URLs, headers, .netrc, .pgpass, redis.conf,
    WireGuard, FCM/X headers, and private keys of every armour in every key context."""
    auth, token = _value(rng, "npm_basic_auth"), _value(rng, "npm_legacy_token")
    r.files[".npmrc"] = _npmrc({"npm_basic_auth": auth[0], "npm_legacy_token": token[0]})
    r.plant("npm_basic_auth", "npmrc", ".npmrc", *auth)
    r.plant("npm_legacy_token", "npmrc", ".npmrc", *token)
    bind = _password(rng, "'\"\\ #")
    r.files["etc/ldap.conf"] = _ldap_conf(bind)
    r.plant("ldap_bind_password", "ldap_conf", "etc/ldap.conf", bind, bind)
    # Credentials in URLs (passwords in a URL are percent-free here: no @ : / ? # in them).
    url_forbidden = "'\"\\ @:/?#%[]&=+;,$"
    urls = []
    for scheme, port in (("postgresql", 5432), ("mongodb+srv", 0), ("amqps", 5671), ("redis", 6379), ("https", 0)):
        password = _password(rng, url_forbidden)
        host = f"{scheme.split('+')[0]}.internal" + (f":{port}" if port else "")
        urls.append((scheme, password, f"{scheme}://svc_{_c(rng, LOWER_DIGITS, 4)}:{password}@{host}/app"))
    r.files["app/database.py"] = "".join(f'{s.split("+")[0].upper()}_URL = "{u}"\n' for s, _, u in urls)
    for scheme, password, _ in urls:
        r.plant("url_password", f"url_userinfo_{scheme.split('+')[0]}", "app/database.py", password, password)
    git_token = _value(rng, "git_credential_token")
    r.files[".git-credentials"] = f"https://x-access-token:{git_token[0]}@github.com\n"
    r.plant("git_credential_token", "git_credentials", ".git-credentials", *git_token)
    jdbc = _password(rng, url_forbidden)
    r.files["src/main/resources/jdbc.conf"] = (f"url = \"jdbc:sqlserver://db.internal:1433;databaseName=app;"
                                               f"user=app;password={jdbc};encrypt=true\"\n")
    r.plant("jdbc_password", "jdbc_url", "src/main/resources/jdbc.conf", jdbc, jdbc)
    netrc, pgpass = _password(rng, "'\"\\ #"), _password(rng, "'\"\\ :#")
    r.files[".netrc"] = f"machine api.acme.dev\n  login deploy-bot\n  password {netrc}\n"
    r.plant("netrc_password", "netrc", ".netrc", netrc, netrc)
    r.files[".pgpass"] = f"db.internal:5432:app:app_rw:{pgpass}\n"
    r.plant("pgpass_password", "pgpass", ".pgpass", pgpass, pgpass)
    redis = _password(rng, "'\"\\ #")
    r.files["conf/redis.conf"] = f"bind 127.0.0.1\nport 6379\nrequirepass {redis}\nmaxmemory 2gb\n"
    r.plant("redis_password", "redis_conf", "conf/redis.conf", redis, redis)
    wg = _value(rng, "wireguard_private_key")
    r.files["etc/wireguard/wg0.conf"] = (f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {wg[0]}\n\n[Peer]\n"
                                         f"PublicKey = {_b64(rng, 32)}\nEndpoint = vpn.acme.dev:51820\n")
    r.plant("wireguard_private_key", "wireguard_conf", "etc/wireguard/wg0.conf", *wg)
    # Headers: in JS fetch, in a shell curl, in a .http file, in Python requests.
    x, fcm, bearer, basic, apikey = (_value(rng, k) for k in ("x_bearer_token", "fcm_server_key", "bearer_token",
                                                              "basic_auth_credentials", "api_key_header"))
    r.files["src/twitter.js"] = ("export async function timeline(id) {\n  return fetch(`https://api.x.com/2/users/${id}`, {\n"
                                 f"    headers: {{ Authorization: 'Bearer {x[0]}' }},\n  }});\n}}\n")
    r.plant("x_bearer_token", "authorization_header_js", "src/twitter.js", *x)
    r.files["app/push.py"] = ("import requests\n\n\ndef push(message):\n    return requests.post(\n"
                              "        'https://fcm.googleapis.com/fcm/send', json=message,\n"
                              f"        headers={{'Authorization': 'key={fcm[0]}'}})\n")
    r.plant("fcm_server_key", "authorization_key_header_python", "app/push.py", *fcm)
    r.files["scripts/smoke.sh"] = (f"#!/bin/sh\ncurl -sf -H \"Authorization: Bearer {bearer[0]}\" https://api.acme.dev/health\n"
                                   f"curl -sf -H 'x-api-key: {apikey[0]}' https://api.acme.dev/v2/items\n")
    r.plant("bearer_token", "curl_header", "scripts/smoke.sh", *bearer)
    r.plant("api_key_header", "curl_header", "scripts/smoke.sh", *apikey)
    r.files["requests/admin.http"] = (f"GET https://admin.acme.dev/api/users\nAuthorization: Basic {basic[0]}\n"
                                      "Accept: application/json\n")
    r.plant("basic_auth_credentials", "http_file_header", "requests/admin.http", *basic)
    mysql = _password(rng, "'\"\\ ")
    r.files["scripts/backup.sh"] = f"#!/bin/sh\nmysqldump -u root -p'{mysql}' app > /backups/app.sql\n"
    r.plant("mysql_root_password", "command_line_flag", "scripts/backup.sh", mysql, mysql)
    # Private keys: in their own files, and embedded.
    for kind in KEY_TYPES:
        text, body = make_key(rng, kind)
        suffix = {"putty_private_key": ".ppk", "openvpn_static_key": ".key", "openssh_private_key": "",
                  "pgp_private_key": ".asc"}.get(kind, ".pem")
        path = f"keys/{kind}{suffix}"
        r.files[path] = text
        r.plant(kind, "key_file", path, text, body)
    for context, kind in (("key_in_yaml_block", "rsa_private_key"), ("key_in_json_escaped", "pkcs8_private_key"),
                          ("key_in_python_string", "ec_private_key"), ("key_in_shell_heredoc", "openssh_private_key"),
                          ("key_in_markdown_fence", "putty_private_key")):
        text, body = make_key(rng, kind)
        if context == "key_in_yaml_block":
            path, doc = "k8s/tls.yaml", "apiVersion: v1\nkind: Secret\nstringData:\n  tls.key: |\n" + textwrap.indent(text, "    ")
        elif context == "key_in_json_escaped":
            path = "credentials/service-account.json"
            doc = json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": _c(rng, HEX, 40),
                              "private_key": text, "client_email": "deployer@acme-prod.iam.gserviceaccount.com"}, indent=2)
        elif context == "key_in_python_string":
            path, doc = "app/signing.py", f"SIGNING_KEY = {text!r}\n"
        elif context == "key_in_shell_heredoc":
            path, doc = "scripts/install_key.sh", f"#!/bin/sh\ncat > ~/.ssh/id_ed25519 <<'EOF'\n{text}EOF\n"
        else:
            path, doc = "docs/ssh.md", f"# SSH\n\nSave this as `deploy.ppk`:\n\n```\n{text}```\n"
        r.files[path] = doc
        r.plant(kind, context, path, text, body)


def _plant_notebook(r: Round, rng: random.Random) -> None:
    code = [_value(rng, k) for k in ("cohere_key", "together_key", "okta_api_token", "db_password")]
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [f"Okta token for the sandbox: {code[2][0]}\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["import cohere\n", f'co = cohere.Client(api_key="{code[0][0]}")\n']},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "source": ["print(settings)\n"],
         "outputs": [{"name": "stdout", "output_type": "stream",
                      "text": [f"{{'together_api_key': '{code[1][0]}', 'db_password': '{code[3][0]}'}}\n"]}]},
    ]
    r.files["notebooks/explore.ipynb"] = json.dumps({"cells": cells, "metadata": {"kernelspec": {
        "language": "python", "name": "python3", "display_name": "Python 3"}}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    for (value, body), kind, context in zip(code, ("cohere_key", "together_key", "okta_api_token", "db_password"),
                                            ("notebook_code", "notebook_output", "notebook_markdown", "notebook_output")):
        r.plant(kind, context, "notebooks/explore.ipynb", value, body)


def _plant_history(r: Round, rng: random.Random) -> None:
    """A repository whose deploy key, TLS key, npm token and database password are each committed,
    rotated (the diff's - and + lines) and finally deleted."""
    texts = []
    for _ in range(3):
        ssh, pem = make_key(rng, "openssh_private_key"), make_key(rng, "rsa_private_key")
        password = _password(rng, "'\"\\ ")
        npm = _value(rng, "npm_legacy_token")
        texts.append((ssh, pem, password, npm))
    for n, (ssh, pem, password, npm) in enumerate(texts):
        changes = {"deploy/id_ed25519": ssh[0], "deploy/tls.key": pem[0],
                   "deploy/config.yaml": f"database:\n  host: db.internal\n  password: \"{password}\"\n",
                   ".npmrc": f"//registry.npmjs.org/:_authToken={npm[0]}\n"}
        message = "Add deploy credentials" if n == 0 else f"Rotate deploy credentials ({n})"
        r.history.append((message, changes))
        context = "commit_added" if n == 0 else "commit_rotated"
        r.plant("openssh_private_key", context, "history", ssh[0], ssh[1])
        r.plant("rsa_private_key", context, "history", pem[0], pem[1])
        r.plant("db_password", context, "history", password, password)
        r.plant("npm_legacy_token", context, "history", *npm)
    r.history.append(("Remove credentials from the repository",
                      {"deploy/id_ed25519": None, "deploy/tls.key": None, "deploy/config.yaml": None, ".npmrc": None}))


def _plant_issues(r: Round, rng: random.Random) -> None:
    okta, slack_pw, bearer, sas = (_value(rng, k) for k in ("okta_api_token", "smtp_password", "bearer_token",
                                                            "azure_sas_signature"))
    body = ("Deploys started failing this morning with a 401 from the identity provider. I have checked the "
            "network policy and the service account, and both look right to me. Our config, in case it helps:\n\n"
            f"```yaml\nmail:\n  smtp_password: '{slack_pw[0]}'\n```\n\nand the token we use is {okta[0]} (staging only).\n")
    comment = ("Reproduced with curl against the backup container, same result:\n\n"
               f"```\ncurl -H 'Authorization: Bearer {bearer[0]}' 'https://acmebackups.blob.core.windows.net/"
               f"db?sv=2022-11-02&sr=c&sp=rl&se=2026-12-31&sig={sas[0]}'\n```\n")
    user = {"login": "dana-ops", "type": "User"}
    r.issues.append({"url": "https://api.github.com/repos/acme/orders/issues/412", "number": 412,
                     "title": "Deploy fails with 401 after the credentials rotation", "user": user, "state": "open",
                     "body": body, "comments": 1, "created_at": "2026-04-02T09:00:00Z",
                     "updated_at": "2026-04-02T11:00:00Z", "author_association": "MEMBER",
                     "html_url": "https://github.com/acme/orders/issues/412", "labels": []})
    r.issues.append({"url": "https://api.github.com/repos/acme/orders/issues/comments/9001", "id": 9001,
                     "issue_url": "https://api.github.com/repos/acme/orders/issues/412",
                     "user": {"login": "lee-sre", "type": "User"}, "body": comment,
                     "created_at": "2026-04-02T10:00:00Z", "updated_at": "2026-04-02T10:00:00Z",
                     "author_association": "MEMBER"})
    r.plant("smtp_password", "issue_body_code_block", "issues/orders.json", *slack_pw)
    r.plant("okta_api_token", "issue_body_prose", "issues/orders.json", *okta)
    r.plant("bearer_token", "issue_comment_command", "issues/orders.json", *bearer)
    r.plant("azure_sas_signature", "issue_comment_url", "issues/orders.json", *sas)


TRANSCRIPT_PLACES = ("user_prose", "assistant_prose", "tool_call_write", "tool_call_edit", "tool_call_command",
                     "tool_output_cat", "tool_output_file_view")


def _transcript_values(rng: random.Random) -> dict[str, tuple[str, str, str]]:
    """One value per place in a transcript: (type, value, body)."""
    kinds = rng.sample([k for k in SECRET_TYPES if k not in ("azure_sas_signature", "npm_basic_auth")], len(TRANSCRIPT_PLACES))
    return {place: (kind, *_value(rng, kind, "'\"\\ `$")) for place, kind in zip(TRANSCRIPT_PLACES, kinds)}


def _openai_chat(v: dict[str, tuple[str, str, str]]) -> str:
    def env(place: str) -> str:
        return SECRET_TYPES[v[place][0]][0]
    write = json.dumps({"path": "app/local_settings.py", "content": f'{env("tool_call_write")} = "{v["tool_call_write"][1]}"\n'})
    edit = json.dumps({"path": ".env", "old": f"{env('tool_call_edit')}=changeme",
                       "new": f"{env('tool_call_edit')}={v['tool_call_edit'][1]}"})
    command = json.dumps({"command": f"export {env('tool_call_command')}='{v['tool_call_command'][1]}' && make deploy"})
    messages = [
        {"role": "system", "content": "You are a coding agent with file and shell tools."},
        {"role": "user", "content": f"Set up local settings. My {env('user_prose').lower().replace('_', ' ')} is "
                                    f"{v['user_prose'][1]} and deploy when done."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": write}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "wrote app/local_settings.py"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "edit_file", "arguments": edit}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "edited .env"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "bash", "arguments": command}}]},
        {"role": "tool", "tool_call_id": "c3", "content": "deploy ok"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c4", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": "cat config/prod.env"})}}]},
        {"role": "tool", "tool_call_id": "c4", "content": f"{env('tool_output_cat')}={v['tool_output_cat'][1]}\nLOG_LEVEL=info\n"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c5", "type": "function", "function": {"name": "view_file", "arguments": json.dumps({"path": "app/keys.py"})}}]},
        {"role": "tool", "tool_call_id": "c5",
         "content": f"1: import os\n2: {env('tool_output_file_view')} = '{v['tool_output_file_view'][1]}'\n"},
        {"role": "assistant", "content": f"Done. I used `{env('assistant_prose')}={v['assistant_prose'][1]}` for the deploy."},
    ]
    return json.dumps({"messages": messages}) + "\n"


def _claude_code(v: dict[str, tuple[str, str, str]]) -> str:
    def env(place: str) -> str:
        return SECRET_TYPES[v[place][0]][0]
    session = "3b1f6c2e-8a4d-4e7b-9c1a-2d5e7f9a0b13"
    lines, parent = [], None

    def add(kind: str, content, n: int) -> None:
        nonlocal parent
        uid = f"{kind[0]}{n}"
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                       "content": content, "stop_reason": None}
        lines.append({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/app",
                      "sessionId": session, "version": "1.0.98", "type": kind, "message": message, "uuid": uid,
                      "timestamp": f"2026-05-01T10:00:{n:02d}.000Z"})
        parent = uid
    add("user", f"Wire the {env('user_prose').lower().replace('_', ' ')} {v['user_prose'][1]} into the app.", 1)
    add("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {
        "file_path": "/home/dev/app/settings_local.py",
        "content": f'{env("tool_call_write")} = "{v["tool_call_write"][1]}"\n'}}], 2)
    add("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "File created successfully"}], 3)
    add("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Edit", "input": {
        "file_path": "/home/dev/app/.env", "old_string": f"{env('tool_call_edit')}=",
        "new_string": f"{env('tool_call_edit')}={v['tool_call_edit'][1]}"}}], 4)
    add("user", [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "The file has been updated."}], 5)
    add("assistant", [{"type": "tool_use", "id": "toolu_3", "name": "Bash", "input": {
        "command": f"curl -s -H 'Authorization: Bearer {v['tool_call_command'][1]}' https://api.acme.dev/me",
        "description": "Check the token"}}], 6)
    add("user", [{"type": "tool_result", "tool_use_id": "toolu_3", "content": '{"user": "dev"}'}], 7)
    add("assistant", [{"type": "tool_use", "id": "toolu_4", "name": "Bash", "input": {"command": "cat .env.prod"}}], 8)
    add("user", [{"type": "tool_result", "tool_use_id": "toolu_4",
                  "content": f"{env('tool_output_cat')}={v['tool_output_cat'][1]}\n"}], 9)
    add("assistant", [{"type": "tool_use", "id": "toolu_5", "name": "Read", "input": {"file_path": "/home/dev/app/keys.py"}}], 10)
    add("user", [{"type": "tool_result", "tool_use_id": "toolu_5",
                  "content": f"     1\timport os\n     2\t{env('tool_output_file_view')} = '{v['tool_output_file_view'][1]}'\n"}], 11)
    add("assistant", [{"type": "text", "text": f"All set: `{env('assistant_prose')}` is now {v['assistant_prose'][1]}."}], 12)
    return "".join(json.dumps(line) + "\n" for line in lines)


def _swe_agent(v: dict[str, tuple[str, str, str]]) -> str:
    def env(place: str) -> str:
        return SECRET_TYPES[v[place][0]][0]
    def call(n: int, name: str, arguments: dict) -> dict:
        return {"role": "assistant", "content": "", "thought": "", "action": name, "agent": "main",
                "message_type": "action", "tool_calls": [{"id": f"call_{n}", "type": "function",
                                                          "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    def observation(n: int, text: str) -> dict:
        return {"role": "tool", "content": [{"type": "text", "text": text}], "agent": "main",
                "message_type": "observation", "tool_call_ids": [f"call_{n}"]}
    history = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer.", "agent": "main",
         "message_type": "system_prompt"},
        {"role": "user", "agent": "main", "message_type": "observation",
         "content": f"ISSUE:\nThe client fails to authenticate; the {env('user_prose').lower().replace('_', ' ')} is "
                    f"{v['user_prose'][1]} on staging.\n"},
        call(1, "str_replace_editor", {"command": "create", "path": "/repo/app/creds.py",
                                       "file_text": f'{env("tool_call_write")} = "{v["tool_call_write"][1]}"\n'}),
        observation(1, "File created successfully at: /repo/app/creds.py"),
        call(2, "str_replace_editor", {"command": "str_replace", "path": "/repo/.env", "old_str": f"{env('tool_call_edit')}=",
                                       "new_str": f"{env('tool_call_edit')}={v['tool_call_edit'][1]}"}),
        observation(2, "The file /repo/.env has been edited."),
        call(3, "bash", {"command": f"{env('tool_call_command')}='{v['tool_call_command'][1]}' python -m app.check"}),
        observation(3, "ok"),
        call(4, "bash", {"command": "cat /repo/conf/prod.env"}),
        observation(4, f"{env('tool_output_cat')}={v['tool_output_cat'][1]}\n"),
        call(5, "str_replace_editor", {"command": "view", "path": "/repo/app/keys.py"}),
        observation(5, f"Here's the result of running `cat -n` on /repo/app/keys.py:\n     1\timport os\n"
                       f"     2\t{env('tool_output_file_view')} = '{v['tool_output_file_view'][1]}'\n"),
        {"role": "assistant", "agent": "main", "message_type": "action", "action": "submit", "thought": "",
         "content": f"The fix uses {env('assistant_prose')}={v['assistant_prose'][1]}; submitting.",
         "tool_calls": [{"id": "call_6", "type": "function", "function": {"name": "submit", "arguments": "{}"}}]},
    ]
    return json.dumps({"history": history, "trajectory": [], "info": {"exit_status": "submitted", "submission": "diff"}})


def _plant_transcripts(r: Round, rng: random.Random) -> None:
    for fmt, name, render in (("openai_chat", "runs/openai.jsonl", _openai_chat),
                              ("claude_code", "runs/claude/3b1f6c2e-8a4d-4e7b-9c1a-2d5e7f9a0b13.jsonl", _claude_code),
                              ("swe_agent", "runs/swe/acme__orders-412.traj", _swe_agent)):
        values = _transcript_values(rng)
        r.transcripts[name] = render(values)
        for place, (kind, value, body) in values.items():
            r.plant(kind, f"{fmt}_{place}", name, value, body)


def generate(seed: int, per_type: int = 2) -> Round:
    """One seeded draw of the whole round."""
    rng = random.Random(seed)
    r = Round(seed)
    _plant_files(r, rng, per_type)
    _plant_special(r, rng)
    _plant_notebook(r, rng)
    _plant_history(r, rng)
    _plant_issues(r, rng)
    _plant_transcripts(r, rng)
    r.files["LICENSE"] = "MIT License\n\nCopyright (c) 2026 Acme\n"
    return r


# --- writing the inputs, building, scanning -----------------------------------------------------------

def _git(repo: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "Dana Ops", "GIT_AUTHOR_EMAIL": "dana@acme.dev", "GIT_COMMITTER_NAME": "Dana Ops",
           "GIT_COMMITTER_EMAIL": "dana@acme.dev", "GIT_AUTHOR_DATE": "2026-03-01T10:00:00Z",
           "GIT_COMMITTER_DATE": "2026-03-01T10:00:00Z", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def write_inputs(r: Round, root: Path) -> dict[str, Path]:
    """The round's inputs on disk: a repository folder, a git history, an issues export, transcripts."""
    repo = root / "acme-orders"
    for path, text in r.files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    history = root / "acme-deploy"
    history.mkdir()
    _git(history, "init", "-q", "-b", "main")
    (history / "LICENSE").write_text(r.files["LICENSE"])
    (history / "README.md").write_text("# acme deploy\n\nDeployment configuration for the orders service.\n")
    _git(history, "add", "-A")
    _git(history, "commit", "-q", "-m", "Initial commit")
    for message, changes in r.history:
        for path, text in changes.items():
            target = history / path
            if text is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
        _git(history, "add", "-A")
        _git(history, "commit", "-q", "-m", message)
    issues = root / "issues"
    issues.mkdir()
    (issues / "issues-412.json").write_text(json.dumps(r.issues[0]))
    (issues / "issues-412-comments.json").write_text(json.dumps([r.issues[1]]))
    runs = []
    for name, text in r.transcripts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        runs.append(root / name)
    on_disk = "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    on_disk += subprocess.run(["git", "-C", str(history), "log", "-p"], capture_output=True, text=True, check=True).stdout
    missing = [p for p in r.plants if p.value not in on_disk and json.dumps(p.value)[1:-1] not in on_disk
               and not all(line in on_disk for line in p.body.split("\n"))]
    if missing:
        raise RuntimeError(f"planted values not in the build's input: {[(p.type, p.context) for p in missing]}")
    return {"repo": repo, "history": history, "issues": issues, "runs": runs}


def crawl_views(r: Round, root: Path) -> dict[str, str]:
    """Each document of the round as the crawl writes it (read by its source's reader, redacted by
    ``RedactWith``), its text and metadata together; no build, so a test can check every draw quickly."""
    from codemix.document import Document
    from codemix.filters.secrets import RedactionConfig
    from codemix.pipelines.crawl import RedactWith
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    inputs, views = write_inputs(r, root), {}
    redact = RedactWith(RedactionConfig())
    for given in spec(inputs)["sources"]:
        source = SourceConfig(**{k: v for k, v in given.items() if k not in ("notebooks", "issues")})
        source.validate(given["name"])
        for location in source.paths:
            for n, outcome in enumerate(read_location(source, location)):
                if isinstance(outcome, Document):
                    *_, doc = redact(outcome)
                    views[f"{given['name']}:{doc.path or location}:{n}"] = doc.text + json.dumps(doc.metadata, ensure_ascii=False)
    return views


def spec(inputs: dict[str, Path]) -> dict:
    return {
        "name": "leak-round",
        "sources": [
            {"name": "files", "type": "directory", "paths": [str(inputs["repo"])], "license": "MIT",
             "notebooks": {"layout": "cells"}},
            {"name": "history", "type": "commits", "paths": [str(inputs["history"])], "license": "MIT"},
            {"name": "threads", "type": "issues", "paths": [str(inputs["issues"])], "license": "MIT",
             "issues": {"min_human_chars": 50}},
            {"name": "runs", "type": "transcripts", "paths": [str(p) for p in inputs["runs"]], "license": "MIT"},
        ],
        "stages": {"short": {"sequence_length": 256, "token_budget": 2_000_000,
                             "weights": {"files": 1, "history": 1, "threads": 1, "runs": 1}}},
        "tokenizer": {"vocab_size": 2000},
        "filters": {"code": {"max_line_length": 100_000, "max_mean_line_length": 100_000,
                             "min_alphabetic_fraction": 0.0, "min_alphanumeric_fraction": 0.0,
                             "max_encoded_run": 100_000, "max_encoded_fraction": 1.0},
                    "languages": {lang: {"max_data_lines": 0} for lang in ("json", "yaml")},
                    "natural_language": {"enabled": False}},
    }


def build(r: Round, root: Path) -> Path:
    """``mix build`` of the round under ``root``; returns the output folder."""
    import yaml

    from codemix.mix.cli import main as mix

    inputs = write_inputs(r, root)
    (root / "spec.yaml").write_text(yaml.safe_dump(spec(inputs)))
    out = root / "out"
    code = mix(["build", str(root / "spec.yaml"), "--out", str(out)])
    if code != 0:
        raise RuntimeError(f"mix build exited {code}")
    return out


def output_texts(out: Path) -> dict[str, str]:
    """Everything the build wrote, as text: decoded shards, Parquet rows, JSON/YAML/text files, the vocabulary."""
    import pyarrow.parquet as pq

    from codemix.mixtures.inspect import read_manifest
    from codemix.mixtures.tokenizer import load_tokenizer
    from codemix.pretrain.data.pretraining import read_documents

    texts: dict[str, str] = {}
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    for name, stage in read_manifest(str(out))["stages"].items():
        for prefix in stage["shards"]:
            texts[f"shards:{name}:{Path(prefix).name}"] = "\n".join(
                tokenizer.decode(doc.tolist(), skip_special_tokens=False) for doc in read_documents(prefix))
    for path in sorted(out.rglob("*")):
        if not path.is_file():
            continue
        rel = str(path.relative_to(out))
        if path.suffix == ".parquet":
            rows = json.dumps(pq.read_table(path).to_pylist(), default=str, ensure_ascii=False)
            texts[rel] = rows + "\n" + json.loads(json.dumps(rows))
        elif path.suffix in (".json", ".jsonl", ".yaml", ".yml", ".txt", ".md", ".log", ".csv", ".html"):
            raw = path.read_text(errors="replace")
            texts[rel] = raw + "\n" + raw.encode().decode("unicode_escape", errors="replace")
    vocab = {tokenizer.decode([i]).strip() for i in range(tokenizer.get_vocab_size())}
    texts["vocabulary"] = "\n".join(sorted(t for t in vocab if len(t) >= WINDOW))
    texts["vocabulary_short"] = "\n".join(sorted(t for t in vocab if 8 <= len(t) < WINDOW))
    return texts


def vocabulary_fragments(plants: list[Plant], texts: dict[str, str]) -> list[str]:
    """Vocabulary tokens of 8-11 characters that lie inside a planted body: shorter than a window, yet
    a piece only that secret has (a word such as ``password`` never lies inside a random body)."""
    return sorted({t for t in texts.get("vocabulary_short", "").split("\n") if t and any(t in p.body for p in plants)})


def scan(plants: list[Plant], texts: dict[str, str]) -> list[dict]:
    """Each plant found in an output: where, and which needle (masked to its first 4 characters)."""
    found = []
    for plant in plants:
        needles = [plant.value, *plant.needles()]
        for where, text in texts.items():
            hit = next((n for n in needles if n and n in text), None)
            if hit:
                found.append({"type": plant.type, "context": plant.context, "path": plant.path, "output": where,
                              "needle": hit[:4] + "…"})
                break
    return found


def report(r: Round, leaks: list[dict]) -> dict:
    leaked = {(x["type"], x["context"]) for x in leaks}
    per_type, per_context = Counter(p.type for p in r.plants), Counter(p.context for p in r.plants)
    missed_type = Counter(p.type for p in r.plants if (p.type, p.context) in leaked)
    missed_context = Counter(p.context for p in r.plants if (p.type, p.context) in leaked)
    return {"seed": r.seed, "planted": len(r.plants), "types": len(per_type), "contexts": len(per_context),
            "caught": len(r.plants) - sum(1 for p in r.plants if (p.type, p.context) in leaked),
            "leaks": leaks,
            "per_type": {k: f"{n - missed_type[k]}/{n}" for k, n in sorted(per_type.items())},
            "per_context": {k: f"{n - missed_context[k]}/{n}" for k, n in sorted(per_context.items())}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=4701)
    parser.add_argument("--keep", type=Path, help="build here and keep it (default: a temporary folder)")
    parser.add_argument("--out", type=Path, help="write the report as JSON here")
    parser.add_argument("--inputs-only", action="store_true", help="write the inputs and stop (no build)")
    args = parser.parse_args(argv)
    r = generate(args.seed)
    with tempfile.TemporaryDirectory(prefix="leak-round-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        if args.inputs_only:
            write_inputs(r, root)
            print(json.dumps({"planted": len(r.plants), "types": len({p.type for p in r.plants}),
                              "contexts": len({p.context for p in r.plants})}))
            return 0
        out = build(r, root)
        texts = output_texts(out)
        result = report(r, scan(r.plants, {k: v for k, v in texts.items() if k != "vocabulary_short"}))
        result["vocabulary_fragments"] = vocabulary_fragments(r.plants, texts)
        result["outputs_scanned"] = {"parquet": sum(k.endswith(".parquet") for k in texts),
                                     "shards": sum(k.startswith("shards:") for k in texts),
                                     "json_yaml_text": sum(k.endswith((".json", ".jsonl", ".yaml", ".txt", ".md")) for k in texts),
                                     "vocabulary_tokens_12_plus": texts["vocabulary"].count("\n") + 1,
                                     "shard_placeholders": sum(v.count("<SECRET_") for k, v in texts.items()
                                                               if k.startswith("shards:"))}
    print(json.dumps({k: v for k, v in result.items() if k != "leaks"}, indent=1))
    print(json.dumps(result["leaks"], indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

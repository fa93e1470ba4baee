"""A planted corpus: realistic repository files and an agent transcript holding hundreds of secrets
of many shapes in many contexts, for the redaction tests and the end-to-end build test.

Every secret is a ``Planted`` record: its shape (``huggingface_token``, ``mysql_cli_password``...),
the context it was written in (``yaml_block``, ``notebook``...), the file, and the exact strings
that must never survive (``fragments``: the value, or each line of a private key's body).
Values are random, from a seeded RNG, in each vendor's issued format; none is a documented example.
"""

from __future__ import annotations

import base64
import html
import json
import random
import re
import string
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from codemix.mix.cli import main as mix

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
PASSWORD_CHARS = ALNUM + "-_~!*"


@dataclass(frozen=True, slots=True)
class Planted:
    shape: str
    context: str
    path: str
    fragments: tuple[str, ...]  # every one must be gone from what a build writes


@dataclass(frozen=True, slots=True)
class TokenShape:
    """A vendor credential: its env/config name and how its literal is written around the value."""

    name: str
    env: str
    make: Callable[[random.Random], str]
    literal: str = "{}"  # how the value appears in a config: a full webhook URL, a connection string
    url_safe: bool = True


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _jwt(rng: random.Random) -> str:
    def part(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    claims = {"sub": str(rng.randrange(10**6, 10**7)), "iat": rng.randrange(1_600_000_000, 1_800_000_000)}
    signature = base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{signature}"


def _pypi(rng: random.Random) -> str:
    # A macaroon: the fixed header naming pypi.org, then base64 of the random caveats.
    return "pypi-AgEIcHlwaS5vcmc" + base64.urlsafe_b64encode(rng.randbytes(120)).decode().rstrip("=")


def _discord_bot(rng: random.Random) -> str:
    user_id = base64.b64encode(str(rng.randrange(10**17, 10**18)).encode()).decode().rstrip("=")
    return f"{user_id}.{_chars(rng, URLSAFE, 6)}.{_chars(rng, URLSAFE, 38)}"


TOKEN_SHAPES = (
    TokenShape("aws_access_key", "AWS_ACCESS_KEY_ID", lambda r: "AKIA" + _chars(r, string.ascii_uppercase + "234567", 16)),
    TokenShape("aws_secret_key", "AWS_SECRET_ACCESS_KEY", lambda r: _chars(r, ALNUM + "+/", 40), url_safe=False),
    TokenShape("github_classic_token", "GITHUB_TOKEN", lambda r: "ghp_" + _chars(r, ALNUM, 36)),
    TokenShape("github_fine_grained_token", "GH_TOKEN",
               lambda r: f"github_pat_{_chars(r, ALNUM, 22)}_{_chars(r, ALNUM, 59)}"),
    TokenShape("gitlab_token", "GITLAB_TOKEN", lambda r: "glpat-" + _chars(r, URLSAFE, 20)),
    TokenShape("slack_bot_token", "SLACK_BOT_TOKEN",
               lambda r: f"xoxb-{_chars(r, string.digits, 12)}-{_chars(r, string.digits, 13)}-{_chars(r, ALNUM, 24)}"),
    TokenShape("slack_webhook", "SLACK_WEBHOOK_URL",
               lambda r: f"T{_chars(r, string.ascii_uppercase + string.digits, 10)}/B{_chars(r, string.ascii_uppercase + string.digits, 10)}/{_chars(r, ALNUM, 24)}",
               literal="https://hooks.slack.com/services/{}"),
    TokenShape("stripe_secret_key", "STRIPE_SECRET_KEY", lambda r: "sk_live_" + _chars(r, ALNUM, 99)),
    TokenShape("openai_project_key", "OPENAI_API_KEY", lambda r: "sk-proj-" + _chars(r, URLSAFE, 156)),
    TokenShape("openai_legacy_key", "OPENAI_KEY", lambda r: f"sk-{_chars(r, ALNUM, 20)}T3BlbkFJ{_chars(r, ALNUM, 20)}"),
    TokenShape("anthropic_key", "ANTHROPIC_API_KEY", lambda r: "sk-ant-api03-" + _chars(r, URLSAFE, 93) + "AA"),
    TokenShape("google_api_key", "GOOGLE_API_KEY", lambda r: "AIza" + _chars(r, URLSAFE, 35)),
    TokenShape("google_oauth_client_secret", "GOOGLE_CLIENT_SECRET", lambda r: "GOCSPX-" + _chars(r, URLSAFE, 28)),
    TokenShape("huggingface_token", "HF_TOKEN", lambda r: "hf_" + _chars(r, string.ascii_letters, 34)),
    TokenShape("sendgrid_key", "SENDGRID_API_KEY", lambda r: f"SG.{_chars(r, URLSAFE, 22)}.{_chars(r, URLSAFE, 43)}"),
    TokenShape("twilio_api_key", "TWILIO_API_KEY", lambda r: "SK" + _chars(r, HEX, 32)),
    TokenShape("azure_storage_key", "AZURE_STORAGE_CONNECTION_STRING",
               lambda r: base64.b64encode(r.randbytes(64)).decode(),
               literal="DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={};EndpointSuffix=core.windows.net",
               url_safe=False),
    TokenShape("azure_client_secret", "AZURE_CLIENT_SECRET",
               lambda r: f"{_chars(r, ALNUM, 3)}{r.randrange(10)}Q~{_chars(r, ALNUM + '_~.-', 34)}"),
    TokenShape("discord_bot_token", "DISCORD_BOT_TOKEN", _discord_bot),
    TokenShape("discord_webhook", "DISCORD_WEBHOOK_URL",
               lambda r: f"{r.randrange(10**17, 10**18)}/{_chars(r, URLSAFE, 68)}",
               literal="https://discord.com/api/webhooks/{}"),
    TokenShape("npm_token", "NPM_TOKEN", lambda r: "npm_" + _chars(r, ALNUM, 36)),
    TokenShape("pypi_token", "PYPI_API_TOKEN", _pypi),
    TokenShape("jwt", "API_JWT", _jwt),
    TokenShape("telegram_bot_token", "TELEGRAM_BOT_TOKEN",
               lambda r: f"{r.randrange(10**9, 8 * 10**9)}:AA{_chars(r, URLSAFE, 33)}"),
    TokenShape("databricks_token", "DATABRICKS_TOKEN", lambda r: "dapi" + _chars(r, HEX, 32)),
    TokenShape("digitalocean_token", "DIGITALOCEAN_TOKEN", lambda r: "dop_v1_" + _chars(r, HEX, 64)),
    TokenShape("groq_key", "GROQ_API_KEY", lambda r: "gsk_" + _chars(r, ALNUM, 52)),
    TokenShape("replicate_token", "REPLICATE_API_TOKEN", lambda r: "r8_" + _chars(r, ALNUM, 37)),
    TokenShape("shopify_token", "SHOPIFY_ACCESS_TOKEN", lambda r: "shpat_" + _chars(r, HEX, 32)),
    # Formats taken from gitleaks' rule set (config/gitleaks.toml): each vendor's documented prefix and alphabet.
    TokenShape("doppler_token", "DOPPLER_TOKEN", lambda r: "dp.pt." + _chars(r, ALNUM, 43)),
    TokenShape("pulumi_token", "PULUMI_ACCESS_TOKEN", lambda r: "pul-" + _chars(r, HEX, 40)),
    TokenShape("postman_key", "POSTMAN_API_KEY", lambda r: f"PMAK-{_chars(r, HEX, 24)}-{_chars(r, HEX, 34)}"),
    TokenShape("linear_key", "LINEAR_API_KEY", lambda r: "lin_api_" + _chars(r, ALNUM, 40)),
    TokenShape("grafana_cloud_token", "GRAFANA_TOKEN", lambda r: "glc_" + _chars(r, ALNUM, 48)),
    TokenShape("flyio_token", "FLY_API_TOKEN", lambda r: "fo1_" + _chars(r, URLSAFE, 43)),
    TokenShape("sentry_user_token", "SENTRY_AUTH_TOKEN", lambda r: "sntryu_" + _chars(r, HEX, 64)),
    TokenShape("planetscale_token", "PLANETSCALE_TOKEN", lambda r: "pscale_tkn_" + _chars(r, ALNUM, 43)),
    TokenShape("prefect_key", "PREFECT_API_KEY", lambda r: "pnu_" + _chars(r, ALNUM, 36)),
    TokenShape("shippo_token", "SHIPPO_API_TOKEN", lambda r: "shippo_live_" + _chars(r, HEX, 40)),
    TokenShape("rubygems_key", "GEM_HOST_API_KEY", lambda r: "rubygems_" + _chars(r, HEX, 48)),
    TokenShape("dynatrace_token", "DT_API_TOKEN",
               lambda r: f"dt0c01.{_chars(r, string.ascii_uppercase + string.digits, 24)}.{_chars(r, ALNUM, 64)}"),
    TokenShape("notion_token", "NOTION_TOKEN", lambda r: f"ntn_{_chars(r, string.digits, 11)}{_chars(r, ALNUM, 35)}"),
    TokenShape("age_secret_key", "SOPS_AGE_KEY", lambda r: "AGE-SECRET-KEY-1" + _chars(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
)

# Passwords as they are typed on command lines and in connection URLs: "{}" is the password.
COMMAND_SHAPES = {
    "mysql_cli_password": "mysql -h db.internal -u app -p{} orders",
    "mysql_pwd_env": "MYSQL_PWD={} mysqldump -u app --single-transaction orders",
    "pgpassword_env": "PGPASSWORD={} psql -h db.internal -U app -d orders -c 'select 1'",
    "sshpass_password": "sshpass -p '{}' ssh deploy@bastion.internal uptime",
    "curl_basic_auth": "curl -fsS -u deploy:{} https://ci.internal/api/json",
    "password_flag": "celery flower --broker-api=http://mq.internal:15672/api/ --password={}",
    "postgres_url": "postgresql://app:{}@db.internal:5432/orders",
    "amqp_url": "amqp://worker:{}@rabbitmq.internal:5672/",
    "redis_url": "redis://:{}@cache.internal:6379/0",
}


def _password(rng: random.Random) -> str:
    return _chars(rng, ALNUM, 9) + _chars(rng, "-_~!*", 2) + _chars(rng, ALNUM, 5)


def _camel(env: str) -> str:
    head, *rest = env.lower().split("_")
    return head + "".join(word.title() for word in rest)


# --- how one line of each kind is written in each context -----------------------------------------
# A token context maps (env name, literal) to a line; a command context maps a command to a line.

TOKEN_CONTEXTS: dict[str, Callable[[str, str], str]] = {
    "python_quoted": lambda env, lit: f'{env} = "{lit}"',
    "yaml_plain": lambda env, lit: f"    {env.lower()}: {lit}",
    "yaml_block": lambda env, lit: f"    {env}={lit}",  # inside an ``env_file: |`` block scalar
    "dotenv": lambda env, lit: f"{env}={lit}",
    "shell": lambda env, lit: f'export {env}="{lit}"',
    "url": lambda env, lit: f"git clone https://ci-bot:{lit}@git.internal/acme/{env.lower()}.git",
    "json_escaped": lambda env, lit: f'"{env}": {json.dumps(lit)}',
    "xml": lambda env, lit: f"  <{_camel(env)}>{html.escape(lit, quote=False)}</{_camel(env)}>",
    "comment": lambda env, lit: f'# {env} = "{lit}"  # rotated? check with ops',
    "notebook": lambda env, lit: f'os.environ["{env}"] = "{lit}"',
    "agent_tool_output": lambda env, lit: f"{env}={lit}",  # an ``env`` dump in a tool result
    "dockerfile": lambda env, lit: f"ENV {env}={lit}",
    "ini": lambda env, lit: f"{env.lower()} = {lit}",
}
COMMAND_CONTEXTS: dict[str, Callable[[str], str]] = {
    "python_quoted": lambda cmd: f"subprocess.run({cmd!r}, shell=True, check=True)",
    "yaml_plain": lambda cmd: f"    command: {json.dumps(cmd)}",
    "yaml_block": lambda cmd: f"      {cmd}",  # inside a ``run: |`` block scalar
    "dotenv": lambda cmd: f"BACKUP_COMMAND={json.dumps(cmd)}",
    "shell": lambda cmd: cmd,
    "url": lambda cmd: f"See `{cmd}` in the runbook.",
    "json_escaped": lambda cmd: f'"command": {json.dumps(cmd)}',
    "xml": lambda cmd: f"  <exec>{html.escape(cmd, quote=False)}</exec>",
    "comment": lambda cmd: f"# {cmd}",
    "notebook": lambda cmd: f"!{cmd}",
    "agent_tool_output": lambda cmd: f"$ {cmd}",
    "dockerfile": lambda cmd: f"RUN {cmd}",
    "ini": lambda cmd: f"command = {cmd}",
}
CONTEXT_FILES = {
    "python_quoted": "app/settings_{}.py", "yaml_plain": "deploy/values_{}.yaml", "yaml_block": "ci/pipeline_{}.yml",
    "dotenv": "services/svc{}/.env", "shell": "scripts/deploy_{}.sh", "url": "docs/runbook_{}.md",
    "json_escaped": "config/secrets_{}.json", "xml": "conf/app_{}.xml", "comment": "app/clients_{}.py",
    "notebook": "notebooks/explore_{}.ipynb", "dockerfile": "docker/{}/Dockerfile", "ini": "conf/service_{}.ini",
}
SETTINGS_HEADER = '"""Deployment settings for the orders service."""\n\nimport os\nimport subprocess\n\nDEBUG = False\n'
CLIENTS_HEADER = ('"""API clients."""\n\nimport logging\n\nlog = logging.getLogger(__name__)\n\n\n'
                  "def make_session(timeout: float = 10.0):\n    import requests\n\n    session = requests.Session()\n"
                  "    session.headers['User-Agent'] = 'orders/1.0'\n    return session\n\n")


def _wrap(context: str, lines: list[str], n: int) -> str:
    """The realistic file around ``lines`` for one context."""
    body = "\n".join(lines)
    if context == "python_quoted":
        return SETTINGS_HEADER + "\n" + body + "\n\nTIMEOUT = int(os.environ.get('TIMEOUT', '30'))\n"
    if context == "comment":
        return CLIENTS_HEADER + body + "\n\n\ndef ping(session):\n    return session.get('https://api.internal/ping')\n"
    if context == "yaml_plain":
        return f"replicaCount: 2\nimage:\n  repository: acme/orders\n  tag: \"1.{n}.0\"\nenv:\n  secrets:\n{body}\n"
    if context == "yaml_block":
        return (f"name: deploy-{n}\non: [push]\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n"
                f"      - run: |\n{textwrap.indent(body, '      ')}\n")
    if context == "dotenv":
        return f"# service {n}\nLOG_LEVEL=info\nPORT=80{n:02d}\n{body}\n"
    if context == "shell":
        return f"#!/usr/bin/env bash\nset -euo pipefail\ncd \"$(dirname \"$0\")/..\"\n\n{body}\n\necho done\n"
    if context == "url":
        return f"# Runbook {n}\n\nTo deploy by hand:\n\n```\n{body}\n```\n\nThen check the dashboard.\n"
    if context == "json_escaped":
        return "{\n  \"service\": \"orders\",\n  \"env\": {\n    " + ",\n    ".join(lines) + "\n  }\n}\n"
    if context == "xml":
        return f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration>\n{body}\n</configuration>\n"
    if context == "notebook":
        source = ["import os\n", "import pandas as pd\n", *[line + "\n" for line in lines], "df = pd.read_csv('orders.csv')"]
        cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# Exploration {n}"]},
                 {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": source}]
        return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
                           "nbformat_minor": 5}, indent=1) + "\n"
    if context == "dockerfile":
        return f"FROM python:3.11-slim\nWORKDIR /app\nCOPY . .\n{body}\nCMD [\"python\", \"-m\", \"orders\"]\n"
    if context == "ini":
        return f"[service]\nname = orders\nworkers = 4\n\n[credentials]\n{body}\n"
    raise ValueError(context)


# --- private keys -------------------------------------------------------------------------------

KEY_KINDS = {  # label -> DER prefix (so bodies start like real keys: MIIEow..., MHcCAQEE..., b3BlbnNzaC1...)
    "RSA PRIVATE KEY": bytes.fromhex("308204a30201000282010100"),
    "EC PRIVATE KEY": bytes.fromhex("30770201010420"),
    "OPENSSH PRIVATE KEY": b"openssh-key-v1\x00\x00\x00\x00\x04none",
    "PRIVATE KEY": bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7"),
}
KEY_CONTEXTS = ("pem_file", "yaml_block", "kubernetes_base64", "json_escaped", "python_quoted", "notebook",
                "agent_tool_output", "dotenv", "terraform_heredoc", "shell_heredoc")


def _pem(rng: random.Random, label: str) -> tuple[str, list[str]]:
    body = base64.b64encode(KEY_KINDS[label] + rng.randbytes(rng.randrange(300, 600))).decode()
    lines = re.findall(".{1,64}", body)
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n", lines


def _key_file(context: str, pem: str, n: int) -> tuple[str, str]:
    """(path, text) of a file holding ``pem`` in ``context``."""
    if context == "pem_file":
        return f"certs/server_{n}.key", pem
    if context == "yaml_block":  # a Kubernetes Secret's stringData, indented under a block scalar
        return f"k8s/tls_{n}.yaml", ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\n"
                                     "stringData:\n  tls.key: |\n" + textwrap.indent(pem, "    "))
    if context == "kubernetes_base64":
        encoded = base64.b64encode(pem.encode()).decode()
        return f"k8s/tls_data_{n}.yaml", ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-data\n"
                                          f"type: kubernetes.io/tls\ndata:\n  tls.key: {encoded}\n")
    if context == "json_escaped":  # a GCP service-account file
        return f"config/service_account_{n}.json", json.dumps(
            {"type": "service_account", "project_id": "acme-prod", "private_key_id": "k1", "private_key": pem,
             "client_email": "deployer@acme-prod.iam.gserviceaccount.com"}, indent=2) + "\n"
    if context == "python_quoted":
        return f"app/signing_{n}.py", f'"""Signing key."""\n\nSIGNING_KEY = """{pem}"""\n\n\ndef key():\n    return SIGNING_KEY\n'
    if context == "notebook":
        source = ["key = '''" + pem.splitlines(keepends=True)[0], *pem.splitlines(keepends=True)[1:], "'''\n"]
        return f"notebooks/keys_{n}.ipynb", json.dumps({"cells": [{"cell_type": "code", "execution_count": 2, "metadata": {},
                                                                   "outputs": [], "source": source}],
                                                        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    if context == "dotenv":
        return f"services/keys{n}/.env", "JWT_PRIVATE_KEY=\"" + pem.replace("\n", "\\n") + "\"\n"
    if context == "terraform_heredoc":
        return f"infra/key_{n}.tf", f'resource "tls_cert" "c{n}" {{\n  private_key_pem = <<-EOT\n{textwrap.indent(pem, "    ")}  EOT\n}}\n'
    if context == "shell_heredoc":
        return f"scripts/install_key_{n}.sh", f"#!/bin/sh\ncat > ~/.ssh/id_deploy <<'EOF'\n{pem}EOF\nchmod 600 ~/.ssh/id_deploy\n"
    raise ValueError(context)


# --- the corpus ---------------------------------------------------------------------------------

@dataclass
class Corpus:
    files: dict[str, str] = field(default_factory=dict)  # repository path -> text
    transcript: list[dict] = field(default_factory=list)  # OpenAI-style messages of one agent run
    planted: list[Planted] = field(default_factory=list)

    def texts(self) -> dict[str, str]:
        """Every file, and the transcript as its JSONL line."""
        return {**self.files, "runs.jsonl": json.dumps({"messages": self.transcript}) + "\n"}


def build_corpus(seed: int = 14, per_file: int = 8) -> Corpus:
    """Every token shape and every command shape in every context (``per_file`` lines a file), and
    every key kind in every key context."""
    rng, corpus = random.Random(seed), Corpus()
    lines_by_context: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {c: [] for c in TOKEN_CONTEXTS}
    for context, write in TOKEN_CONTEXTS.items():
        for shape in TOKEN_SHAPES:
            value = shape.make(rng)
            literal = shape.literal.format(value)
            if context == "url" and not shape.url_safe:
                line = f"curl 'https://storage.internal/upload?access_key={literal}'"
            else:
                line = write(shape.env, literal)
            lines_by_context[context].append((shape.name, line, (value,)))
        for shape, template in COMMAND_SHAPES.items():
            password = _password(rng)
            lines_by_context[context].append((shape, COMMAND_CONTEXTS[context](template.format(password)), (password,)))
    for context, entries in lines_by_context.items():
        if context == "agent_tool_output":
            _plant_transcript(corpus, entries)
            continue
        for n, start in enumerate(range(0, len(entries), per_file)):
            chunk = entries[start:start + per_file]
            path = CONTEXT_FILES[context].format(n)
            corpus.files[path] = _wrap(context, [line for _, line, _ in chunk], n)
            corpus.planted += [Planted(shape, context, path, values) for shape, _, values in chunk]
    for n, (label, context) in enumerate((label, context) for label in KEY_KINDS for context in KEY_CONTEXTS):
        pem, lines = _pem(rng, label)
        shape = label.lower().replace(" ", "_")
        if context == "agent_tool_output":
            corpus.transcript += [
                {"role": "assistant", "content": "Let me look at the deploy key.", "tool_calls": [{
                    "id": f"key_{n}", "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": "cat ~/.ssh/id_deploy"})}}]},
                {"role": "tool", "tool_call_id": f"key_{n}", "content": pem}]
            corpus.planted.append(Planted(shape, context, "runs.jsonl", tuple(lines)))
            continue
        path, text = _key_file(context, pem, n)
        fragments = tuple(lines)
        if context == "kubernetes_base64":
            encoded = base64.b64encode(pem.encode()).decode()
            fragments = tuple(re.findall(".{1,48}", encoded)[1:])  # the first chunk is "-----BEGIN ..." itself
        corpus.files[path] = text
        corpus.planted.append(Planted(shape, context, path, fragments))
    _plant_issue_25(corpus, rng)
    return corpus


# --- shapes that got through before issue 25, each in the file type where it is written -------------

def _issue_25_lines(rng: random.Random) -> list[tuple[str, str, str, str]]:
    """``(shape, context, line, value)``: one of each shape in its natural context."""
    pw, hex32 = _password(rng), _chars(rng, HEX, 32)
    basic = base64.b64encode(f"admin:{_password(rng)}".encode()).decode()
    docker = base64.b64encode(f"ci-bot:{_password(rng)}".encode()).decode()
    sas = base64.b64encode(rng.randbytes(32)).decode().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    aws, key_id, split = _chars(rng, ALNUM + "+/", 40), "AKIA" + _chars(rng, string.ascii_uppercase + "234567", 16), _chars(rng, ALNUM, 36)
    special = _chars(rng, ALNUM, 5) + "#" + _chars(rng, ALNUM, 4) + "@" + _chars(rng, ALNUM, 5)
    telegram = f"{rng.randrange(10**9, 8 * 10**9)}:AA{_chars(rng, URLSAFE, 33)}"
    return [
        ("go_mysql_dsn", "go_source", f'\tdsn := "orders:{pw}@tcp(db.internal:3306)/orders?parseTime=true"', pw),
        ("env_default", "python_env_default", f'REDIS_PASSWORD = os.environ.get("REDIS_PASSWORD", "{_password(rng)}")', None),
        ("php_token", "php_source", f'$token = "{hex32}";', hex32),
        ("twilio_positional_token", "python_twilio", f'client = Client("AC{_chars(rng, HEX, 32)}", "{_chars(rng, HEX, 32)}")', None),
        ("docker_auth", "docker_config_json", f'"https://index.docker.io/v1/": {{"auth": "{docker}"}}', docker),
        ("nginx_basic_auth", "nginx_conf", f'    proxy_set_header Authorization "Basic {basic}";', basic),
        ("telegram_bot_token", "python_telegram", f'bot = telebot.TeleBot("{telegram}")', telegram),
        ("azure_sas_sig", "python_sas_url", f'BLOB = "https://acme.blob.core.windows.net/c/f.csv?sv=2022-11-02&sp=r&sig={sas}"', sas),
        ("gcp_private_key_id", "gcp_service_account", f'  "private_key_id": "{_chars(rng, HEX, 40)}",', None),
        ("split_github_token", "python_split_literal", f'TOKEN = "ghp_" + "{split[:18]}" + "{split[18:]}"', None),
        ("aws_secret_in_prose", "agent_prose", f"Use key {key_id} with secret {aws} for the backup bucket.", aws),
        ("db_url_raw_specials", "yaml_db_url", f"  url: postgres://app:{special}@db.internal:5432/orders", special),
    ]


ISSUE_25_FILES = {"go_source": ("cmd/db_{}.go", 'package main\n\nfunc dsn() string {{\n{}\n\treturn dsn\n}}\n'),
                  "php_source": ("web/config_{}.php", "<?php\n{}\nreturn $token;\n"),
                  "nginx_conf": ("nginx/site_{}.conf", "location /api/ {{\n    proxy_pass http://backend;\n{}\n}}\n"),
                  "docker_config_json": ("docker/config_{}.json", '{{\n  "auths": {{\n    {}\n  }}\n}}\n'),
                  "gcp_service_account": ("config/sa_{}.json", '{{\n  "type": "service_account",\n{}\n  "project_id": "acme"\n}}\n'),
                  "yaml_db_url": ("deploy/db_{}.yaml", "database:\n{}\n")}


def _plant_issue_25(corpus: Corpus, rng: random.Random, copies: int = 10) -> None:
    """``copies`` of each issue-25 shape: in files of their own type, and in an agent's trace as a file
    it writes (the arguments JSON-escape the quotes), in prose, and in notebook markdown."""
    for n in range(copies):
        python_lines: list[str] = []
        for shape, context, line, value in _issue_25_lines(rng):
            values = (value,) if value else (re.findall(r'"([^"]{16,})"\)?$', line) or [line.rsplit('"', 2)[-2]])[-1:]
            if shape == "split_github_token":
                values = tuple(re.findall(r'"([A-Za-z0-9]{18})"', line))
            if context in ISSUE_25_FILES:
                path, template = ISSUE_25_FILES[context]
                corpus.files[path.format(n)] = template.format(line)
                corpus.planted.append(Planted(shape, context, path.format(n), tuple(values)))
            elif context == "agent_prose":
                corpus.transcript.insert(2, {"role": "assistant", "content": line})
                corpus.planted.append(Planted(shape, context, "runs.jsonl", tuple(values)))
            else:
                python_lines.append(line)
                corpus.planted.append(Planted(shape, context, f"app/integrations_{n}.py", tuple(values)))
        code = "import os\n\nimport telebot\nfrom twilio.rest import Client\n\n" + "\n".join(python_lines) + "\n"
        corpus.files[f"app/integrations_{n}.py"] = code
        _plant_written_file(corpus, rng, n)


def _plant_written_file(corpus: Corpus, rng: random.Random, n: int) -> None:
    """A settings file written by an agent's tool call (quotes JSON-escaped) and shown in notebook markdown."""
    password, token = _password(rng), "ghp_" + _chars(rng, ALNUM, 36)
    code = f'import os\n\nADMIN_PASSWORD = "{password}"\nDEBUG = False\n'
    arguments = json.dumps({"command": "create", "path": f"app/admin_{n}.py", "file_text": code})
    corpus.transcript.insert(2, {"role": "assistant", "content": "", "tool_calls": [{
        "id": f"write_{n}", "type": "function", "function": {"name": "str_replace_editor", "arguments": arguments}}]})
    corpus.planted.append(Planted("json_escaped_password", "agent_tool_call_file", "runs.jsonl", (password,)))
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["Set the token first:\n", "\n", f"    export GITHUB_TOKEN={token}\n"]},
             {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": ["import os\n"]}]
    path = f"notebooks/setup_{n}.ipynb"
    corpus.files[path] = json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                                     "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    corpus.planted.append(Planted("github_classic_token", "notebook_markdown", path, (token,)))


def _plant_transcript(corpus: Corpus, entries: list[tuple[str, str, tuple[str, ...]]]) -> None:
    """An agent that dumps its environment and reruns commands; the values come back in tool output,
    and the commands also in the tool calls' arguments."""
    corpus.transcript = [
        {"role": "system", "content": "You are a helpful assistant that can run shell commands."},
        {"role": "user", "content": "The orders service cannot reach its dependencies. Please investigate."}]
    for n, start in enumerate(range(0, len(entries), 8)):
        chunk = entries[start:start + 8]
        commands = [line[2:] for _, line, _ in chunk if line.startswith("$ ")]
        command = " && ".join(commands) if commands else "env | sort"
        output = "\n".join(line for _, line, _ in chunk)
        corpus.transcript += [
            {"role": "assistant", "content": f"Step {n}: let me check the environment.", "tool_calls": [{
                "id": f"call_{n}", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": output}]
        corpus.planted += [Planted(shape, "agent_tool_output", "runs.jsonl", values) for shape, _, values in chunk]
    corpus.transcript.append({"role": "assistant", "content": "The credentials were rotated; I updated the config."})


def leaked(planted: list[Planted], text: str) -> list[Planted]:
    """The planted secrets any of whose fragments occur in ``text``."""
    return [p for p in planted if any(fragment in text for fragment in p.fragments)]


# The fixed parts of the vendor formats: public, and shared by every token of a vendor.
VENDOR_PREFIXES = ("github_pat_", "ghp_", "glpat-", "xoxb-", "sk_live_", "sk-proj-", "sk-ant-api03-", "sk-", "AIza",
                   "GOCSPX-", "hf_", "SG.", "npm_", "pypi-AgEIcHlwaS5vcmc", "dapi", "dop_v1_", "gsk_", "r8_", "shpat_",
                   "AKIA", "SK", "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.", "dp.pt.", "pul-", "PMAK-", "lin_api_",
                   "glc_", "fo1_", "sntryu_", "pscale_tkn_", "pnu_", "shippo_live_", "rubygems_", "dt0c01.", "ntn_",
                   "AGE-SECRET-KEY-1", "ghp_")


def secret_bodies(planted: list[Planted]) -> list[str]:
    """Each fragment without its vendor's fixed prefix: the part only this secret has."""
    bodies = []
    for fragment in (f for p in planted for f in p.fragments):
        prefix = next((p for p in VENDOR_PREFIXES if fragment.startswith(p)), "")
        bodies.append(fragment[len(prefix):])
    return bodies


def planted_build(corpus: Corpus, root: Path) -> Path:
    """A real ``mix build`` of ``corpus`` (its files as one repository, its transcript as a JSONL
    source) under ``root``; returns the output directory. Every planted value is checked to be in
    the build's input first."""
    repo = root / "acme-orders"
    for path, text in corpus.files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    (repo / "LICENSE").write_text("MIT License\n\nCopyright (c) 2026 Acme\n")
    runs = root / "runs.jsonl"
    runs.write_text(corpus.texts()["runs.jsonl"])
    on_disk = "\n".join(p.read_text() for p in repo.rglob("*") if p.is_file()) + runs.read_text()
    missing = [p for p in corpus.planted if not all(f in on_disk or json.dumps(f)[1:-1] in on_disk for f in p.fragments)]
    assert missing == []  # every planted value is really in the input of the build
    spec = {
        "name": "planted",
        "sources": [{"name": "repo", "type": "directory", "paths": [str(repo)], "license": "MIT"},
                    {"name": "runs", "type": "transcripts", "paths": [str(runs)], "license": "MIT"}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 1_000_000, "weights": {"repo": 1, "runs": 1}}},
        "tokenizer": {"vocab_size": 2000},
        "filters": {"code": {"max_line_length": 100_000, "max_mean_line_length": 100_000,
                             "min_alphabetic_fraction": 0.0, "min_alphanumeric_fraction": 0.0,
                             "max_encoded_run": 100_000, "max_encoded_fraction": 1.0},
                    "languages": {lang: {"max_data_lines": 0} for lang in ("json", "yaml")},
                    "natural_language": {"enabled": False}},
        "dedup": {"verify": True},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    return out

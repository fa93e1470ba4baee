"""A second planted corpus, written apart from ``planted_corpus``: other vendors, other templates,
other file types and other trace shapes, from its own seed, so the redaction is measured on values
and contexts it was never tuned on.

Formats: each vendor's issued shape as documented by the vendor or described by gitleaks'
(``filters/data/gitleaks.toml``) or trufflehog's detectors (prefix, length, alphabet); values are
random from a seeded RNG, none a documented example. Contexts: TOML, Java properties, Spring YAML,
Compose environment lists, GitHub Actions, tfvars, PowerShell, Go, Rust, JavaScript, Ruby, .NET
appsettings, Makefiles, systemd units, notebooks (``%env`` magics, printed outputs, markdown), logs,
and an agent trace (user and assistant prose, a file written by a tool call, a shell command in a
tool call, and tool output), JSON-escaped wherever the trace's arguments are a JSON string.
"""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
import uuid
from collections.abc import Callable

from tests.filters.planted_corpus import Corpus, Planted

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
LOWER_DIGITS = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _c(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# (shape, config name, maker): prefixes, lengths and alphabets as the vendors issue them.
VENDORS: tuple[tuple[str, str, Callable[[random.Random], str]], ...] = (
    ("github_oauth_token", "GITHUB_OAUTH_TOKEN", lambda r: "gho_" + _c(r, ALNUM, 36)),
    ("github_app_token", "GH_APP_INSTALLATION_TOKEN", lambda r: "ghs_" + _c(r, ALNUM, 36)),
    ("github_refresh_token", "GITHUB_REFRESH_TOKEN", lambda r: "ghr_" + _c(r, ALNUM, 36)),
    ("gitlab_deploy_token", "GITLAB_DEPLOY_TOKEN", lambda r: "gldt-" + _c(r, URLSAFE, 20)),
    ("gitlab_runner_token", "CI_RUNNER_TOKEN", lambda r: "glrt-" + _c(r, URLSAFE, 20)),
    ("slack_user_token", "SLACK_USER_TOKEN",
     lambda r: f"xoxp-{_c(r, string.digits, 12)}-{_c(r, string.digits, 12)}-{_c(r, string.digits, 13)}-{_c(r, HEX, 32)}"),
    ("slack_app_token", "SLACK_APP_TOKEN",
     lambda r: f"xapp-1-A{_c(r, UPPER_DIGITS, 10)}-{_c(r, string.digits, 13)}-{_c(r, HEX, 64)}"),
    ("stripe_restricted_key", "STRIPE_RESTRICTED_KEY", lambda r: "rk_live_" + _c(r, ALNUM, 99)),
    ("stripe_test_secret", "STRIPE_TEST_SECRET", lambda r: "sk_test_" + _c(r, ALNUM, 99)),
    ("openrouter_key", "OPENROUTER_API_KEY", lambda r: "sk-or-v1-" + _c(r, HEX, 64)),
    ("perplexity_key", "PPLX_API_KEY", lambda r: "pplx-" + _c(r, ALNUM, 48)),
    ("xai_key", "XAI_API_KEY", lambda r: "xai-" + _c(r, ALNUM, 80)),
    ("anthropic_admin_key", "ANTHROPIC_ADMIN_KEY", lambda r: "sk-ant-admin01-" + _c(r, URLSAFE, 93) + "AA"),
    ("huggingface_org_token", "HF_ORG_TOKEN", lambda r: "api_org_" + _c(r, string.ascii_letters, 34)),
    ("langsmith_key", "LANGCHAIN_API_KEY", lambda r: f"lsv2_pt_{_c(r, HEX, 32)}_{_c(r, HEX, 10)}"),
    ("atlassian_token", "JIRA_API_TOKEN", lambda r: "ATATT3xFfGF0" + _c(r, URLSAFE, 171) + "=" + _c(r, HEX.upper(), 8)),
    ("heroku_key_v2", "HEROKU_API_KEY", lambda r: "HRKU-AA" + _c(r, URLSAFE, 58)),
    ("vault_service_token", "VAULT_TOKEN", lambda r: "hvs." + _c(r, URLSAFE, 90)),
    ("terraform_cloud_token", "TFE_TOKEN", lambda r: f"{_c(r, ALNUM, 14)}.atlasv1.{_c(r, URLSAFE, 67)}"),
    ("newrelic_user_key", "NEW_RELIC_API_KEY", lambda r: "NRAK-" + _c(r, UPPER_DIGITS, 27)),
    ("sendinblue_key", "BREVO_API_KEY", lambda r: f"xkeysib-{_c(r, HEX, 64)}-{_c(r, ALNUM, 16)}"),
    ("mailgun_private_key", "MAILGUN_API_KEY", lambda r: "key-" + _c(r, HEX, 32)),
    ("square_access_token", "SQUARE_ACCESS_TOKEN", lambda r: "EAAA" + _c(r, URLSAFE, 60)),
    ("shopify_shared_secret", "SHOPIFY_API_SECRET", lambda r: "shpss_" + _c(r, HEX, 32)),
    ("shopify_custom_app_token", "SHOPIFY_CUSTOM_TOKEN", lambda r: "shpca_" + _c(r, HEX, 32)),
    ("dockerhub_pat", "DOCKERHUB_TOKEN", lambda r: "dckr_pat_" + _c(r, URLSAFE, 27)),
    ("supabase_token", "SUPABASE_ACCESS_TOKEN", lambda r: "sbp_" + _c(r, HEX, 40)),
    ("sonarqube_token", "SONAR_TOKEN", lambda r: "sqp_" + _c(r, HEX, 40)),
    ("sourcegraph_token", "SRC_ACCESS_TOKEN", lambda r: "sgp_" + _c(r, HEX, 40)),
    ("grafana_service_account", "GRAFANA_SA_TOKEN", lambda r: f"glsa_{_c(r, ALNUM, 32)}_{_c(r, HEX, 8)}"),
    ("readme_key", "README_API_KEY", lambda r: "rdme_" + _c(r, LOWER_DIGITS, 70)),
    ("scalingo_token", "SCALINGO_API_TOKEN", lambda r: "tk-us-" + _c(r, URLSAFE, 48)),
    ("clojars_token", "CLOJARS_TOKEN", lambda r: "CLOJARS_" + _c(r, LOWER_DIGITS, 60)),
    ("easypost_key", "EASYPOST_API_KEY", lambda r: "EZAK" + _c(r, LOWER_DIGITS, 54)),
    ("duffel_token", "DUFFEL_ACCESS_TOKEN", lambda r: "duffel_live_" + _c(r, URLSAFE, 43)),
    ("flutterwave_secret", "FLW_SECRET_KEY", lambda r: f"FLWSECK-{_c(r, HEX, 32)}-X"),
    ("frameio_token", "FRAMEIO_TOKEN", lambda r: "fio-u-" + _c(r, URLSAFE, 64)),
    ("alibaba_access_key_id", "ALIBABA_CLOUD_ACCESS_KEY_ID", lambda r: "LTAI" + _c(r, ALNUM, 20)),
    ("yandex_access_token", "YC_TOKEN", lambda r: "t1." + _c(r, URLSAFE, 60) + "." + _c(r, URLSAFE, 86)),
    ("airtable_pat", "AIRTABLE_TOKEN", lambda r: f"pat{_c(r, ALNUM, 14)}.{_c(r, HEX, 64)}"),
    ("typeform_token", "TYPEFORM_TOKEN", lambda r: "tfp_" + _c(r, URLSAFE, 59)),
    ("hubspot_private_app", "HUBSPOT_ACCESS_TOKEN", lambda r: "pat-na1-" + _uuid(r)),
    ("nuget_key", "NUGET_API_KEY", lambda r: "oy2" + _c(r, LOWER_DIGITS, 43)),
    ("infracost_key", "INFRACOST_API_KEY", lambda r: "ico-" + _c(r, ALNUM, 32)),
    ("octopus_key", "OCTOPUS_API_KEY", lambda r: "API-" + _c(r, UPPER_DIGITS, 26)),
    ("onepassword_service_account", "OP_SERVICE_ACCOUNT_TOKEN",
     lambda r: "ops_eyJ" + _c(r, ALNUM + "+/", 250)),
    ("mapbox_secret_token", "MAPBOX_SECRET_TOKEN",
     lambda r: "sk.eyJ1Ijoi" + _c(r, URLSAFE, 60) + "." + _c(r, URLSAFE, 22)),
    ("dropbox_short_lived", "DROPBOX_TOKEN", lambda r: "sl." + _c(r, URLSAFE, 135)),
    ("planetscale_password", "PLANETSCALE_DB_PASSWORD", lambda r: "pscale_pw_" + _c(r, URLSAFE, 43)),
    ("pinecone_key", "PINECONE_API_KEY", lambda r: f"pcsk_{_c(r, ALNUM, 5)}_{_c(r, ALNUM, 63)}"),
    ("buildkite_token", "BUILDKITE_API_TOKEN", lambda r: "bkua_" + _c(r, HEX, 40)),
    ("figma_token", "FIGMA_TOKEN", lambda r: f"figd_{_c(r, URLSAFE, 40)}"),
    ("tailscale_key", "TS_AUTHKEY", lambda r: f"tskey-auth-{_c(r, ALNUM, 17)}-{_c(r, ALNUM, 33)}"),
    ("cloudflare_origin_ca", "CF_ORIGIN_CA_KEY", lambda r: f"v1.0-{_c(r, HEX, 24)}-{_c(r, HEX, 146)}"),
    ("django_secret_key", "DJANGO_SECRET_KEY",
     lambda r: "django-insecure-" + _c(r, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)),
    ("rails_secret_key_base", "SECRET_KEY_BASE", lambda r: _c(r, HEX, 128)),
    ("wandb_key", "WANDB_API_KEY", lambda r: _c(r, HEX, 40)),
)


def _line(context: str, env: str, value: str) -> str:
    """How one credential is written in one context (``env`` is its conventional name)."""
    lower, dotted = env.lower(), env.lower().replace("_", ".")
    camel = lower.split("_")[0] + "".join(w.title() for w in lower.split("_")[1:])
    return {
        "toml": f'{lower} = "{value}"',
        "java_properties": f"app.{dotted}={value}",
        "spring_yaml": f"    {lower.replace('_', '-')}: {value}",
        "compose_env_list": f"      - {env}={value}",
        "github_actions_env": f"      {env}: '{value}'",
        "tfvars": f'{lower} = "{value}"',
        "powershell": f'$env:{env} = "{value}"',
        "go_const": f'\t{camel} = "{value}"',
        "rust_const": f'pub const {env}: &str = "{value}";',
        "js_object": f"  {camel}: '{value}',",
        "ruby_env": f"ENV['{env}'] ||= '{value}'",
        "dotnet_appsettings": f'    "{camel[0].upper() + camel[1:]}": "{value}",',
        "makefile": f"{env} ?= {value}",
        "systemd_unit": f'Environment="{env}={value}"',
        "notebook_env_magic": f"%env {env}={value}",
        "notebook_output": f"  '{env}': '{value}',",
        "notebook_markdown": f"* `{env}`: `{value}`",
        "log_file": f"2026-03-14 09:12:44,118 DEBUG settings: loaded {lower}={value} from vault",
        "trace_user_prose": f"My {env.replace('_', ' ').lower()} is {value} - can you wire it into the deploy script?",
        "trace_assistant_prose": f"I'll put `{env}={value}` into `.env.production` and restart the worker.",
        "trace_tool_call_file": f'{env} = "{value}"',
        "trace_tool_call_command": f"export {env}='{value}' && ./scripts/smoke.sh",
        "trace_tool_output": f"config/production.env:{lower.count('_') + 3}:{env}={value}",
    }[context]


CONTEXTS = ("toml", "java_properties", "spring_yaml", "compose_env_list", "github_actions_env", "tfvars", "powershell",
            "go_const", "rust_const", "js_object", "ruby_env", "dotnet_appsettings", "makefile", "systemd_unit",
            "notebook_env_magic", "notebook_output", "notebook_markdown", "log_file", "trace_user_prose",
            "trace_assistant_prose", "trace_tool_call_file", "trace_tool_call_command", "trace_tool_output")
FILE_OF = {"toml": "pyproject_{}.toml", "java_properties": "src/main/resources/application-{}.properties",
           "spring_yaml": "src/main/resources/application-{}.yml", "compose_env_list": "compose/docker-compose.{}.yml",
           "github_actions_env": ".github/workflows/release_{}.yml", "tfvars": "infra/env/{}.auto.tfvars",
           "powershell": "tools/setup_{}.ps1", "go_const": "internal/config/keys_{}.go", "rust_const": "src/secrets_{}.rs",
           "js_object": "web/config/keys.{}.js", "ruby_env": "config/initializers/keys_{}.rb",
           "dotnet_appsettings": "Api/appsettings.{}.json", "makefile": "mk/{}.mk", "systemd_unit": "deploy/worker{}.service",
           "notebook_env_magic": "analysis/env_{}.ipynb", "notebook_output": "analysis/debug_{}.ipynb",
           "notebook_markdown": "analysis/readme_{}.ipynb", "log_file": "logs/app_{}.log"}


def _file(context: str, lines: list[str], n: int) -> str:
    body = "\n".join(lines)
    if context == "toml":
        return f'[project]\nname = "svc{n}"\nversion = "0.{n}.0"\n\n[tool.svc.credentials]\n{body}\n'
    if context == "java_properties":
        return f"server.port=80{n:02d}\nspring.application.name=billing\n{body}\nlogging.level.root=INFO\n"
    if context == "spring_yaml":
        return f"spring:\n  application:\n    name: billing-{n}\nintegrations:\n  credentials:\n{body}\n"
    if context == "compose_env_list":
        return f"services:\n  api:\n    image: acme/api:1.{n}\n    environment:\n{body}\n    ports:\n      - \"8080:8080\"\n"
    if context == "github_actions_env":
        return (f"name: release-{n}\non:\n  push:\n    tags: ['v*']\njobs:\n  publish:\n    runs-on: ubuntu-latest\n"
                f"    env:\n{body}\n    steps:\n      - uses: actions/checkout@v4\n      - run: make publish\n")
    if context == "tfvars":
        return f'region = "eu-west-1"\nenvironment = "stage{n}"\n{body}\n'
    if context == "powershell":
        return f"# Local setup {n}\nSet-StrictMode -Version Latest\n{body}\nWrite-Host 'configured'\n"
    if context == "go_const":
        return f"package config\n\n// Keys for environment {n}.\nconst (\n{body}\n)\n"
    if context == "rust_const":
        return f"//! Credentials for stage {n}.\n\n{body}\n\npub fn region() -> &'static str {{\n    \"eu-west-1\"\n}}\n"
    if context == "js_object":
        return f"'use strict';\n\nmodule.exports = {{\n  env: 'stage{n}',\n{body}\n}};\n"
    if context == "ruby_env":
        return f"# frozen_string_literal: true\n\n{body}\n\nRails.logger.info('keys loaded')\n"
    if context == "dotnet_appsettings":
        return ('{\n  "Logging": { "LogLevel": { "Default": "Information" } },\n  "Integrations": {\n'
                + body.rstrip(",") + "\n  }\n}\n")
    if context == "makefile":
        return f"# stage {n}\n{body}\n\n.PHONY: deploy\ndeploy:\n\t./deploy.sh\n"
    if context == "systemd_unit":
        return (f"[Unit]\nDescription=Billing worker {n}\nAfter=network.target\n\n[Service]\n{body}\n"
                "ExecStart=/usr/bin/python3 -m billing.worker\nRestart=always\n\n[Install]\nWantedBy=multi-user.target\n")
    if context == "log_file":
        return f"2026-03-14 09:12:40,002 INFO starting worker {n}\n{body}\n2026-03-14 09:12:45,870 INFO ready\n"
    return _notebook(context, lines, n)


def _notebook(context: str, lines: list[str], n: int) -> str:
    """A notebook as Jupyter writes it, the lines in a code cell, a printed output or markdown."""
    code = ["import os\n", "import pandas as pd\n"]
    cells: list[dict] = [{"cell_type": "markdown", "metadata": {}, "source": [f"## Debug session {n}"]}]
    if context == "notebook_env_magic":
        cells.append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                      "source": [*code, *(line + "\n" for line in lines), "df = pd.read_parquet('events.parquet')"]})
    elif context == "notebook_output":
        text = ["environ({\n", *(line + "\n" for line in lines), "  'HOME': '/home/jovyan'})\n"]
        cells.append({"cell_type": "code", "execution_count": 3, "metadata": {},
                      "outputs": [{"name": "stdout", "output_type": "stream", "text": text}],
                      "source": [*code, "print(os.environ)"]})
    else:
        cells.append({"cell_type": "markdown", "metadata": {},
                      "source": ["Credentials for the staging run:\n", "\n", *(line + "\n" for line in lines)]})
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                                   "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1, ensure_ascii=False) + "\n"


# Passwords and connection strings, human-chosen or generated, each in its own file type.
def _password(rng: random.Random) -> str:
    return _c(rng, ALNUM, 7) + rng.choice("!%^*+=.") + _c(rng, ALNUM, 6)


PASSWORD_FILES: tuple[tuple[str, str, str], ...] = (
    ("jdbc_url_password", "src/main/resources/db-{}.properties",
     "spring.datasource.url=jdbc:postgresql://pg.internal:5432/billing?user=billing&password={}\n"),
    ("dotnet_connection_string", "Api/appsettings.Db{}.json",
     '{{\n  "ConnectionStrings": {{\n    "Default": "Server=sql.internal;Database=Billing;User Id=billing;Password={};"\n  }}\n}}\n'),
    ("netrc_password", "home/netrc_{}", "machine git.internal\n  login deploy\n  password {}\n"),
    ("pypirc_password", "home/pypirc_{}", "[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.internal/\nusername = ci\npassword = {}\n"),
    ("pgpass_line", "home/pgpass_{}", "pg.internal:5432:billing:billing:{}\n"),
    ("smtp_url", "deploy/mail_{}.env", "EMAIL_URL=smtp+tls://alerts:{}@smtp.internal:587\n"),
    ("ldap_bind_password", "deploy/ldap_{}.yaml", "ldap:\n  url: ldaps://ldap.internal\n  bind_dn: cn=svc,dc=acme,dc=io\n  bind_password: {}\n"),
    ("redis_requirepass", "deploy/redis_{}.conf", "port 6379\nbind 0.0.0.0\nrequirepass {}\nmaxmemory 2gb\n"),
    ("mongo_uri", "app/mongo_{}.py", 'MONGO_URI = "mongodb+srv://reporting:{}@cluster0.ab1cd.mongodb.net/?authSource=admin"\n'),
    ("ftp_url", "scripts/fetch_{}.sh", "#!/bin/sh\nwget -q ftp://export:{}@ftp.partner.io/daily/report.csv\n"),
    ("kubeconfig_token", "kube/config_{}", "apiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n    token: {}\n"),
    ("compose_postgres_password", "compose/db_{}.yml", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {}\n"),
)


def _keys(rng: random.Random) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(shape, path, text, fragments): private keys as key files, kubeconfig data and notebook output."""
    out = []
    for n in range(3):
        body = base64.b64encode(bytes.fromhex("3082025c020100") + rng.randbytes(rng.randrange(400, 600))).decode()
        lines = [body[i:i + 64] for i in range(0, len(body), 64)]
        pem = "-----BEGIN DSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END DSA PRIVATE KEY-----\n"
        out.append(("dsa_private_key", f"certs/legacy_{n}.pem", pem, tuple(lines)))
        enc = base64.b64encode(bytes.fromhex("308205") + rng.randbytes(rng.randrange(500, 700))).decode()
        enc_lines = [enc[i:i + 64] for i in range(0, len(enc), 64)]
        pem = "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + "\n".join(enc_lines) + "\n-----END ENCRYPTED PRIVATE KEY-----\n"
        out.append(("encrypted_private_key", f"certs/client_{n}.key", pem, tuple(enc_lines)))
        pgp = base64.b64encode(rng.randbytes(rng.randrange(600, 900))).decode()
        pgp_lines = [pgp[i:i + 64] for i in range(0, len(pgp), 64)]
        block = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(pgp_lines) + f"\n={_c(rng, B64, 4)}\n"
                 "-----END PGP PRIVATE KEY BLOCK-----\n")
        out.append(("pgp_private_key", f"release/signing_{n}.asc", block, tuple(pgp_lines)))
        ec = base64.b64encode(bytes.fromhex("30770201010420") + rng.randbytes(100)).decode()
        ec_pem = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(ec[i:i + 64] for i in range(0, len(ec), 64)) + "\n-----END EC PRIVATE KEY-----\n"
        data = base64.b64encode(ec_pem.encode()).decode()
        kubeconfig = (f"apiVersion: v1\nkind: Config\nusers:\n- name: admin{n}\n  user:\n"
                      f"    client-certificate-data: {base64.b64encode(b'-----BEGIN CERTIFICATE-----').decode()}\n"
                      f"    client-key-data: {data}\n")
        out.append(("kubeconfig_client_key", f"kube/admin_{n}.yaml", kubeconfig, (data[40:],)))
    return out


def build_corpus_b(seed: int = 2511, contexts_per_vendor: int = 9, per_file: int = 6) -> Corpus:
    """Each vendor shape in ``contexts_per_vendor`` contexts drawn at random, every password shape
    four times, and the private keys; file contexts packed ``per_file`` lines a file."""
    rng, corpus = random.Random(seed), Corpus()
    by_context: dict[str, list[tuple[str, str, str]]] = {c: [] for c in CONTEXTS}
    for shape, env, make in VENDORS:
        for context in rng.sample(CONTEXTS, contexts_per_vendor):
            value = make(rng)
            by_context[context].append((shape, _line(context, env, value), value))
    for context, entries in by_context.items():
        if context.startswith("trace_"):
            _trace(corpus, context, entries)
            continue
        for n, start in enumerate(range(0, len(entries), per_file)):
            chunk = entries[start:start + per_file]
            path = FILE_OF[context].format(n)
            corpus.files[path] = _file(context, [line for _, line, _ in chunk], n)
            corpus.planted += [Planted(shape, context, path, (value,)) for shape, _, value in chunk]
    for shape, template_path, template in PASSWORD_FILES:
        for n in range(4):
            password = _password(rng)
            path = template_path.format(n)
            corpus.files[path] = template.replace("{}", password) if "{{" not in template else template.format(password)
            corpus.planted.append(Planted(shape, path.rsplit(".", 1)[-1] if "." in path else "dotfile", path, (password,)))
    for shape, path, text, fragments in _keys(rng):
        corpus.files[path] = text
        corpus.planted.append(Planted(shape, "key_file", path, fragments))
    return corpus


def _trace(corpus: Corpus, context: str, entries: list[tuple[str, str, str]]) -> None:
    """One agent turn per entry, in the trace shape ``context`` names (OpenAI-style messages)."""
    if not corpus.transcript:
        corpus.transcript = [{"role": "system", "content": "You are a coding agent with a shell and an editor."},
                             {"role": "user", "content": "Set up the billing service for staging."}]
    for i, (shape, line, value) in enumerate(entries):
        call = f"{context}_{i}"
        if context == "trace_user_prose":
            corpus.transcript.append({"role": "user", "content": line})
        elif context == "trace_assistant_prose":
            corpus.transcript.append({"role": "assistant", "content": line})
        elif context == "trace_tool_call_file":
            content = f'"""Staging settings."""\n\nimport os\n\n{line}\nDEBUG = False\n'
            arguments = json.dumps({"path": f"billing/settings_{i}.py", "content": content})
            corpus.transcript += [
                {"role": "assistant", "content": "Writing the settings module.", "tool_calls": [
                    {"id": call, "type": "function", "function": {"name": "write_file", "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": call, "content": f"Wrote billing/settings_{i}.py"}]
        elif context == "trace_tool_call_command":
            corpus.transcript += [
                {"role": "assistant", "content": "", "tool_calls": [{"id": call, "type": "function", "function": {
                    "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", line]})}}]},
                {"role": "tool", "tool_call_id": call, "content": "smoke: 12 passed"}]
        else:
            corpus.transcript += [
                {"role": "assistant", "content": "", "tool_calls": [{"id": call, "type": "function", "function": {
                    "name": "bash", "arguments": json.dumps({"command": "grep -rn '=' config/production.env"})}}]},
                {"role": "tool", "tool_call_id": call, "content": textwrap.dedent(f"""\
                    config/production.env:1:LOG_LEVEL=info
                    {line}
                    config/production.env:9:PORT=8080""")}]
        corpus.planted.append(Planted(shape, context, "runs.jsonl", (value,)))
    corpus.transcript.append({"role": "assistant", "content": "Done: staging is configured."})

"""Secrets found by structure (issue 47): a value a secret's key names is redacted whatever its
characters, in every language; vendor formats that look like placeholders are still vendor tokens;
private keys of every armour, in a diff's removed and added lines alike; and a redaction only masks.

Ground truth is the seeded generator of ``bench/leak_round.py`` (values drawn fresh here, with seeds
the round does not use) and the standard ``tokenize`` module and ``git apply --numstat`` for "the
code around the value is unchanged".
"""

from __future__ import annotations

import io
import random
import subprocess
import tokenize

import pytest

from bench.leak_round import CONTEXTS, KEY_TYPES, SECRET_TYPES, _password, make_key
from codemix.document import Document
from codemix.filters.secrets import RedactionConfig, redact_document, redact_text, redaction_spans
from codemix.pipelines.readers.language import detect_language

CONFIG = RedactionConfig()
SEEDS = (17, 9001)


def _redacted(path: str, text: str) -> str:
    doc = Document(id=path, text=text, source="t", kind="file", path=path, language=detect_language(path, text))
    return redact_document(doc, CONFIG)[0].text


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("context", CONTEXTS, ids=[c.name for c in CONTEXTS])
def test_a_password_a_key_names_is_redacted_whatever_its_first_character(context, seed):
    rng = random.Random(seed)
    symbols = [s for s in "#>(!%&*+,-./:;<=?@[]^_{|}~$" if s not in context.forbidden]
    values = [rng.choice(symbols) + _password(rng, context.forbidden)[1:] for _ in range(6)]
    assert all(not v[0].isalnum() for v in values)  # guard: the class issue 47 found missed
    lines = [context.line(env, value) for env, value in zip(("DB_PASSWORD", "ADMIN_PASSWORD", "SMTP_PASSWORD",
                                                               "SESSION_SECRET", "JWT_SECRET", "REDIS_PASSWORD"), values)]
    text = context.head + "\n".join(lines) + "\n" + context.tail
    redacted = _redacted(context.path, text)
    assert [v for v in values if v in redacted] == []
    # only the values went: every line still starts and ends as it did
    for line, value, out in zip(lines, values, redacted.split("\n")[context.head.count("\n"):]):
        before, after = line.split(value, 1)
        assert out.startswith(before) and out.endswith(after), (line, out)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_generated_type_is_redacted_in_a_python_settings_module(seed):
    rng = random.Random(seed)
    planted = {env: maker(rng, "'\"\\")[0] for env, maker in SECRET_TYPES.values()}
    sas = "https://acme.blob.core.windows.net/backups?sv=2022-11-02&sr=c&sp=rl&sig={}"  # its URL-encoded sig=
    text = "".join(f'{env} = "{sas.format(value) if env == "AZURE_SAS_URL" else value}"\n' for env, value in planted.items())
    redacted = _redacted("app/settings.py", text)
    assert [env for env, value in planted.items() if value in redacted] == []
    assert tokens_outside_strings(redacted) == tokens_outside_strings(text)


@pytest.mark.parametrize("header", ["Authorization: Bearer {}", "headers = {{'Authorization': 'key={}'}}",
                                    "curl -H 'Authorization: Bearer {}' https://api.x.com/2/tweets"])
@pytest.mark.parametrize("kind", ["x_bearer_token", "fcm_server_key"])
def test_vendor_tokens_that_open_with_a_run_of_As_are_not_placeholders(header, kind):
    value, body = SECRET_TYPES[kind][1](random.Random(3), "'\"\\")
    assert value.startswith("AAAA")  # guard: the shape a placeholder check would take for "XXXX"
    redacted, counts = redact_text(header.format(value) + "\n", CONFIG, "")
    assert body not in redacted and sum(counts.values()) == 1


def test_placeholders_templates_and_special_tokens_stay():
    kept = ['eos_token = "<|endoftext|>"', 'mask_token = "[MASK]"', 'ACCESS_TOKEN = "access_token"',
            'password = "${DB_PASSWORD}"', 'token: "{{ secrets.GITHUB_TOKEN }}"', 'password = "%(password)s"',
            'auth_header = "Bearer {}"', 'token_pattern = re.compile(r"[A-Za-z_]\\w*")', 'secret_file = "key.pem"',
            'PASSWORD = "changeme"', 'password = getpass.getpass()', 'api_key = os.environ["API_KEY"]',
            'private_key_path = "/etc/ssl/private/server.key"', 'password = "********"', 'TOKEN_OPT = "--token"']
    for line in kept:
        assert redact_text(line + "\n", CONFIG, "python") == (line + "\n", {}), line


@pytest.mark.parametrize("kind", KEY_TYPES)
def test_private_keys_of_every_armour_are_redacted(kind):
    text, body = make_key(random.Random(5), kind)
    redacted, counts = redact_text(text, CONFIG, "")
    assert [line for line in body.split("\n") if line and line in redacted] == []
    assert counts == {"SECRET_PRIVATE_KEY": 1 if kind != "putty_private_key" else 2}


def test_a_commit_that_rotates_keys_keeps_neither_and_stays_a_valid_diff(tmp_path):
    """Old and new keys in a diff's - and + lines are masked line by line; git still reads the same
    files and line counts from the redacted diff (``git apply --numstat``)."""
    rng = random.Random(11)
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    bodies = []
    for step in range(2):
        for kind in ("openssh_private_key", "rsa_private_key", "putty_private_key"):
            text, body = make_key(rng, kind)
            (repo / f"{kind}.key").write_text(text)
            bodies.append(body)
        password = _password(rng, "'\"\\")
        (repo / "config.yaml").write_text(f'db:\n  password: "{password}"\n')
        bodies.append(password)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", f"keys {step}"], check=True)
    diff = subprocess.run([*git, "show", "--format=Rotate keys%n", "HEAD"], capture_output=True, text=True,
                          check=True).stdout
    assert all(line in diff for body in bodies for line in body.split("\n") if line)  # guard: both sides there
    doc = Document(id="c", text=diff, source="t", kind="commit", path="", language="")
    redacted = redact_document(doc, CONFIG)[0].text
    assert [line for body in bodies for line in body.split("\n") if len(line) >= 12 and line in redacted] == []
    patch = redacted[redacted.index("diff --git"):]

    def numstat(text: str) -> str:
        return subprocess.run(["git", "apply", "--numstat", "-"], input=text, capture_output=True, text=True,
                              check=True, cwd=repo).stdout

    assert numstat(patch) == numstat(diff[diff.index("diff --git"):])
    assert [len(line) and line[0] for line in patch.split("\n")] == \
           [len(line) and line[0] for line in diff[diff.index("diff --git"):].split("\n")]


def test_a_redaction_only_masks():
    """Outside the spans ``redaction_spans`` reports, the text is byte for byte the original's."""
    rng = random.Random(23)
    text = "".join(c.head + c.line("DB_PASSWORD", _password(rng, c.forbidden)) + "\n" + c.tail for c in CONTEXTS)
    spans = redaction_spans(text, CONFIG, "")
    redacted, _ = redact_text(text, CONFIG, "")
    rebuilt, position = [], 0
    for start, end, kind in spans:
        rebuilt += [text[position:start], f"<{kind}>"]
        position = end
    assert "".join(rebuilt) + text[position:] == redacted and len(spans) >= len(CONTEXTS)


@pytest.mark.parametrize("line", [
    "<version>9.3.0.25</version>", "implementation 'org.eclipse.jetty:jetty-server:9.3.0.25'",
    "SECP = {'1.3.132.1': 'secp'}", "requires = ['pkg==1.2.30.4']", "jetty-9.3.0.25.jar",
    'MODEL = "meta-llama/Llama-3.1-8B-Instruct"  # api token model', 'model_id = "Qwen/Qwen2.5-7B-Instruct"  # token'])
def test_versions_oids_and_model_ids_are_not_addresses_or_keys(line):
    assert redact_text(line + "\n", CONFIG, "") == (line + "\n", {})


def test_addresses_are_still_addresses():
    _, counts = redact_text("ssh deploy@203.0.114.7 -p 22\nproxy = 1.3.200.9:8080\n", CONFIG, "")
    assert counts == {"IP_ADDRESS": 2}


def tokens_outside_strings(text: str) -> list[tuple[int, str]]:
    """The standard tokenizer's (type, string) of everything but string literals and comments."""
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.STRING, tokenize.COMMENT)]

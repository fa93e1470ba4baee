"""Realistic secrets of many types, and where to plant them: shared by the redaction tests and the
end-to-end build test that checks the written shards."""

from __future__ import annotations

import base64
import ipaddress
import json
import random
import re
import string

PLACEHOLDER = re.compile(r"<((?:SECRET_[A-Z_]+)|EMAIL|IP_ADDRESS)>")


ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"


class SecretFactory:
    """Realistic values in each vendor's issued format, from a seeded RNG (never a documented example)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def b64(self, n_bytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(n_bytes)).decode()

    def jwt(self) -> str:
        def part(obj: object) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
        claims = {"sub": str(self.rng.randrange(10**6, 10**7)), "iat": self.rng.randrange(1_600_000_000, 1_800_000_000)}
        signature = base64.urlsafe_b64encode(self.rng.randbytes(32)).decode().rstrip("=")
        return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{signature}"

    def public_ip(self) -> str:
        while True:  # middle octets >= 32, so the address reads as one without a network word nearby
            octets = [self.rng.choice([23, 34, 45, 52, 63, 81, 104, 141, 178, 185])] + [
                self.rng.randrange(32, 255) for _ in range(3)]
            value = ".".join(map(str, octets))
            if ipaddress.ip_address(value).is_global:
                return value

    def email(self) -> str:
        first = self.rng.choice(["dana", "li", "omar", "priya", "jonas", "mei", "tomas", "ana"])
        last = self.rng.choice(["whitfield", "nakamura", "okafor", "lindqvist", "moreau", "sato"])
        return f"{first}.{last}{self.rng.randrange(10, 99)}@{self.rng.choice(['acme-corp', 'globex', 'initech'])}.com"

    def value(self, kind: str) -> str:
        return {
            "SECRET_AWS_ACCESS_KEY": lambda: "AKIA" + self.chars(string.ascii_uppercase + "234567", 16),
            "SECRET_AWS_SECRET_KEY": lambda: self.chars(ALNUM + "+/", 40),
            "SECRET_PRIVATE_KEY": lambda: "\n".join(re.findall(".{1,64}", self.b64(900))),
            "SECRET_GITHUB_TOKEN": lambda: "ghp_" + self.chars(ALNUM, 36),
            "SECRET_GITLAB_TOKEN": lambda: "glpat-" + self.chars(URLSAFE, 20),
            "SECRET_SLACK_TOKEN": lambda: f"xoxb-{self.chars(string.digits, 12)}-{self.chars(string.digits, 13)}-"
                                          + self.chars(ALNUM, 24),
            "SECRET_STRIPE_KEY": lambda: "sk_live_" + self.chars(ALNUM, 99),
            "SECRET_OPENAI_KEY": lambda: "sk-proj-" + self.chars(URLSAFE, 156),
            "SECRET_ANTHROPIC_KEY": lambda: "sk-ant-api03-" + self.chars(URLSAFE, 93) + "AA",
            "SECRET_GOOGLE_API_KEY": lambda: "AIza" + self.chars(URLSAFE, 35),
            "SECRET_JWT": self.jwt,
            "SECRET_NPM_TOKEN": lambda: "npm_" + self.chars(ALNUM, 36),
            "SECRET_SENDGRID_KEY": lambda: f"SG.{self.chars(URLSAFE, 22)}.{self.chars(URLSAFE, 43)}",
            "SECRET_TWILIO_KEY": lambda: "SK" + self.chars("0123456789abcdef", 32),
            "SECRET_AZURE_STORAGE_KEY": lambda: self.b64(64),
            "SECRET_PASSWORD": lambda: self.chars(ALNUM, 10) + self.chars("!*-_~", 2) + self.chars(ALNUM, 4),
            "SECRET_HIGH_ENTROPY": lambda: self.chars(ALNUM, 40),
            "EMAIL": self.email,
            "IP_ADDRESS": self.public_ip,
        }[kind]()


# One line of Python per type, the way secrets end up committed.
CODE_LINES = {
    "SECRET_AWS_ACCESS_KEY": 'AWS_ACCESS_KEY_ID = "{}"',
    "SECRET_AWS_SECRET_KEY": 'aws_secret_access_key = "{}"',
    "SECRET_PRIVATE_KEY": 'DEPLOY_KEY = """-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----"""',
    "SECRET_GITHUB_TOKEN": 'gh = Github("{}")',
    "SECRET_GITLAB_TOKEN": 'HEADERS = {{"PRIVATE-TOKEN": "{}"}}',
    "SECRET_SLACK_TOKEN": 'client = WebClient(token="{}")',
    "SECRET_STRIPE_KEY": 'stripe.api_key = "{}"',
    "SECRET_OPENAI_KEY": 'client = OpenAI(api_key="{}")',
    "SECRET_ANTHROPIC_KEY": 'client = anthropic.Anthropic(api_key="{}")',
    "SECRET_GOOGLE_API_KEY": 'GEOCODE = "https://maps.googleapis.com/maps/api/geocode/json?key={}"',
    "SECRET_JWT": 'HEADERS = {{"Authorization": "Bearer {}"}}',
    "SECRET_NPM_TOKEN": 'NPMRC = "//registry.npmjs.org/:_authToken={}"',
    "SECRET_SENDGRID_KEY": 'sg = SendGridAPIClient("{}")',
    "SECRET_TWILIO_KEY": 'TWILIO_API_KEY = "{}"',
    "SECRET_AZURE_STORAGE_KEY": 'CONN = "DefaultEndpointsProtocol=https;AccountName=prod;AccountKey={};EndpointSuffix=core.windows.net"',
    "SECRET_PASSWORD": 'DATABASE_URL = "postgresql://app:{}@db.prod.internal:5432/orders"',
    "SECRET_HIGH_ENTROPY": 'SIGNING_SALT = "{}"',
    "EMAIL": '__maintainer__ = "Dana Whitfield <{}>"',
    "IP_ADDRESS": 'UPSTREAM = ("{}", 443)',
}
PLANTED_FILES = ("json/decoder.py", "shlex.py", "heapq.py")


def plant_in_code(source: str, factory: SecretFactory) -> tuple[str, dict[str, str]]:
    """``source`` with one line per type inserted between its lines; returns the values planted."""
    lines = source.splitlines(keepends=True)
    planted: dict[str, str] = {}
    for kind, template in CODE_LINES.items():
        value = factory.value(kind)
        planted[value] = kind
        lines.insert(factory.rng.randrange(len(lines) + 1), template.format(value) + "\n")
    return "".join(lines), planted


def plant_in_transcript(messages: list[dict], factory: SecretFactory) -> tuple[list[dict], dict[str, str]]:
    """The real run plus an agent that curls with a token and dumps its environment and SSH key."""
    v = {kind: factory.value(kind) for kind in CODE_LINES}
    password, host = factory.value("SECRET_PASSWORD"), factory.value("IP_ADDRESS")
    command = (f"export GITHUB_TOKEN={v['SECRET_GITHUB_TOKEN']} && curl -sH 'Authorization: Bearer {v['SECRET_JWT']}' "
               f"https://api.acme.io/v1/me && psql postgresql://svc:{password}@{host}:5432/app -c 'select 1' && env")
    env_dump = "\n".join([
        "HOSTNAME=3f2a9c1b7d4e", "HOME=/root", "PWD=/testbed",
        f"AWS_ACCESS_KEY_ID={v['SECRET_AWS_ACCESS_KEY']}", f"AWS_SECRET_ACCESS_KEY={v['SECRET_AWS_SECRET_KEY']}",
        f"OPENAI_API_KEY={v['SECRET_OPENAI_KEY']}", f"ANTHROPIC_API_KEY={v['SECRET_ANTHROPIC_KEY']}",
        f"STRIPE_SECRET_KEY={v['SECRET_STRIPE_KEY']}", f"SLACK_BOT_TOKEN={v['SECRET_SLACK_TOKEN']}",
        f"SENDGRID_API_KEY={v['SECRET_SENDGRID_KEY']}", f"NPM_TOKEN={v['SECRET_NPM_TOKEN']}",
        f"GITHUB_TOKEN={v['SECRET_GITHUB_TOKEN']}", f"DB_PASSWORD={v['SECRET_PASSWORD']}",
        f"GIT_AUTHOR_EMAIL={v['EMAIL']}", f"SSH_CONNECTION={v['IP_ADDRESS']} 51234 10.0.3.7 22",
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "TOKENIZERS_PARALLELISM=false"])
    key = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{v['SECRET_PRIVATE_KEY']}\n-----END OPENSSH PRIVATE KEY-----"
    added = [
        {"role": "assistant", "content": "Let me check the API and the environment.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": f'{{"login": "dana"}}\n ?column?\n----------\n 1\n{env_dump}'},
        {"role": "assistant", "content": "```mswea_bash_command\ncat ~/.ssh/id_ed25519\n```"},
        {"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{key}\n</output>"},
    ]
    planted = {value: kind for kind, value in v.items() if kind not in ("SECRET_GITLAB_TOKEN", "SECRET_GOOGLE_API_KEY",
               "SECRET_TWILIO_KEY", "SECRET_AZURE_STORAGE_KEY", "SECRET_HIGH_ENTROPY")}
    planted |= {password: "SECRET_PASSWORD", host: "IP_ADDRESS"}
    return messages + added, planted


def planted_in_order(text: str, planted: dict[str, str]) -> list[tuple[str, str]]:
    """``(value, kind)`` for each occurrence of a planted value in ``text``, in order."""
    regex = re.compile("|".join(re.escape(value) for value in sorted(planted, key=len, reverse=True)))
    return [(match.group(), planted[match.group()]) for match in regex.finditer(text)]


def assert_exactly_planted_redacted(original: str, redacted: str, planted: dict[str, str]) -> int:
    """Every planted occurrence became its placeholder and nothing else changed: putting the values back
    into the placeholders, in order, gives the original byte for byte. Returns the occurrences seen."""
    occurrences = planted_in_order(original, planted)
    placeholders = PLACEHOLDER.findall(redacted)
    assert placeholders == [kind for _, kind in occurrences]
    values = iter(value for value, _ in occurrences)
    assert PLACEHOLDER.sub(lambda _: next(values), redacted) == original
    return len(occurrences)

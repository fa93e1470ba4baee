"""S3 reached with bounded waits, and checked with one call per bucket before any work.

Beam's S3 filesystem retries a failed call seven times with exponential backoff (minutes), and
botocore waits 60 s per connection attempt, so ``mix stats s3://...`` without the endpoint options
sat silent for minutes. Every codemix S3 client gets ``bounded_config()``; ``check_s3`` lists one
key of each bucket a command names, with short waits and few attempts, and raises
``ObjectStoreUnreachable`` with one paragraph naming the service and the options to pass. The probe's
read wait can be set with ``CODEMIX_S3_PROBE_READ_SECONDS`` (a store known to be slow, or a test).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

CONNECT_SECONDS, READ_SECONDS, ATTEMPTS = 10, 60, 3  # every S3 client's (a read may be a large object)
PROBE_CONNECT_SECONDS, PROBE_READ_SECONDS, PROBE_ATTEMPTS = 5, 15, 2  # the one listing before any work
PROBE_READ_ENV = "CODEMIX_S3_PROBE_READ_SECONDS"
S3_OPTIONS = ("--s3_endpoint_url=URL for an S3-compatible store (MinIO, Ceph, moto), --s3_region_name, "
              "--s3_access_key_id and --s3_secret_access_key (or AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and "
              "AWS_ENDPOINT_URL_S3 in the environment)")


class ObjectStoreUnreachable(RuntimeError):
    """An object store a command needs did not answer, or refused the credentials; the message says what to pass."""


def bounded_config(connect: float = CONNECT_SECONDS, read: float = READ_SECONDS, attempts: int = ATTEMPTS):
    """A botocore ``Config`` whose waits and retries are bounded."""
    from botocore.config import Config

    return Config(connect_timeout=connect, read_timeout=read, retries={"max_attempts": attempts, "mode": "standard"})


def probe_read_seconds() -> float:
    """The probe's read wait: ``$CODEMIX_S3_PROBE_READ_SECONDS`` when set (a positive number), else 15 s."""
    from codemix.config import ConfigError

    value = os.environ.get(PROBE_READ_ENV, "").strip()
    if not value:
        return PROBE_READ_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ConfigError(f"${PROBE_READ_ENV}", f"expected a positive number of seconds, got {value!r}",
                          f"unset it for the default {PROBE_READ_SECONDS} s, or give e.g. {PROBE_READ_ENV}=30")
    return seconds


def _s3_client(beam_args: list[str]):
    """A boto3 client with the build's S3 options (Beam's ``S3Options``) and the probe's short waits."""
    return s3_client(beam_args, bounded_config(PROBE_CONNECT_SECONDS, probe_read_seconds(), PROBE_ATTEMPTS))


def s3_client(beam_args: list[str], config=None):
    """A boto3 client with the build's S3 options (Beam's ``S3Options``), bounded waits unless ``config``."""
    import boto3
    from apache_beam.options.pipeline_options import PipelineOptions, S3Options

    options = PipelineOptions(beam_args).view_as(S3Options)
    return boto3.session.Session().client(
        "s3", endpoint_url=options.s3_endpoint_url, region_name=options.s3_region_name,
        aws_access_key_id=options.s3_access_key_id, aws_secret_access_key=options.s3_secret_access_key,
        aws_session_token=options.s3_session_token, verify=options.s3_verify, config=config or bounded_config())


def _refusal(error: Exception) -> str | None:
    """What a failed listing says about reaching the store; None when the store answered (a missing
    bucket or key is an answer: the command says what is missing)."""
    response = getattr(error, "response", None)
    if response is not None:
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status == 404:
            return None
        code = response.get("Error", {}).get("Code", "")
        return f"it refused the request ({code or status}: {str(error)[:200]})"
    return f"{type(error).__name__}: {str(error)[:200]}"


def check_s3(locations: list[str], beam_args: list[str]) -> None:
    """List one key of each bucket among ``locations`` (s3:// only) with short, few waits; raise
    ``ObjectStoreUnreachable`` naming the service, the location and the options to pass."""
    buckets = {}
    for location in locations:
        parts = urlsplit(location)
        if parts.scheme == "s3" and parts.netloc:
            buckets.setdefault(parts.netloc, (location, parts.path.lstrip("/")))
    if not buckets:
        return
    from apache_beam.options.pipeline_options import PipelineOptions, S3Options

    client = _s3_client(beam_args)
    endpoint = PipelineOptions(beam_args).view_as(S3Options).s3_endpoint_url
    service = f"the S3 endpoint {endpoint} (--s3_endpoint_url)" if endpoint else "Amazon S3 (no --s3_endpoint_url given)"
    for bucket, (location, prefix) in sorted(buckets.items()):
        try:
            client.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
        except Exception as error:  # noqa: BLE001 - botocore's errors are many; each is named in the message
            problem = _refusal(error)
            if problem:
                raise ObjectStoreUnreachable(
                    f"cannot read {location} from {service}: {problem}. codemix reaches S3 through Apache Beam's "
                    f"S3 options; pass {S3_OPTIONS}, and check that this machine reaches the endpoint."
                ) from None
